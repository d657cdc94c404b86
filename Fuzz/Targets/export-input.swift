// fuzz-sources: import
// fuzz-options: -detect_leaks=0
// fuzz-asan-options: detect_leaks=0
// (ZIPFoundation 0.9.20 never frees the 36-byte path FileManager.fileSystemRepresentation returns it, once per archive.)
// ExportInput (how `stepsync import` opens a file) on any file: a bare export.xml or the Apple Health entry of a
// zip, found by content and inflated as a stream through ZIPFoundation; refusals quote little of the archive's names
// (Tests/StepSyncImportTests/FuzzOracles/ExportInputOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(ExportInputOracle.problems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
