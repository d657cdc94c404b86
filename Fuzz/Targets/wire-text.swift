// fuzz-sources: core
// The text of wire strings (issue 21.5): raw bytes and \uXXXX escapes, as a POST /samples sourceName and inside its
// details (a value and a key), accepted exactly when String(validating:) accepts the UTF-8 and UTF-16 runs, and then
// kept byte for byte; refusals are invalid_text naming the field (Tests/StepSyncCoreTests/FuzzOracles/WireTextOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(WireTextOracle.problems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
