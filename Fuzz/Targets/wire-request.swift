// fuzz-sources: core
// WireDecoder.decodeRequest on any bytes, as a POST /steps body: what it accepts is valid, re-encodes to the same
// samples and is JSON to Foundation (Tests/StepSyncCoreTests/FuzzOracles/WireOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(WireOracle.requestProblems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
