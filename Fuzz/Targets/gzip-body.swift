// fuzz-sources: import
// The framing of a Content-Encoding: gzip body as the sink reads it (GzipMember around zlib's raw inflate, issue
// 21.6): accepted exactly when zlib's own gzip reader reaches the end of one member with no byte left, inflated to the
// same bytes; byte 0 picks a raw body or a zlib-made member cut, extended or changed
// (Tests/StepSyncImportTests/FuzzOracles/GzipBodyOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(GzipBodyOracle.problems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
