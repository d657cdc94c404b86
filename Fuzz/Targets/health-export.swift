// fuzz-sources: import
// XMLChunkScanner + HealthExportParser on any document cut at fuzzer-chosen points: byte 0 and the bytes after it
// choose the chunk lengths; the result must not depend on them
// (Tests/StepSyncImportTests/FuzzOracles/HealthExportOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(HealthExportOracle.problems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
