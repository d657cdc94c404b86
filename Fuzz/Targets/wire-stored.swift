// fuzz-sources: core
// WireDecoder.decodeStoredSample on any line of the sink's file of any type (the first byte picks the type): what
// JSONLStorage reads back at start and for pages. Accepted samples are valid, of the file's type, and round-trip
// (Tests/StepSyncCoreTests/FuzzOracles/StoredLineOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(StoredLineOracle.problems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
