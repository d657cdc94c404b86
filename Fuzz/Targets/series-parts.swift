// fuzz-sources: core
// The series parts' readers (issue 31): byte 0 even, a route part's details (RoutePart); odd, an ECG part's
// (ElectrocardiogramPart). No trap from any details; accepted parts in range, passed by SeriesValidation, read back
// from their own details; the sink's answers built from them well-formed
// (Tests/StepSyncCoreTests/FuzzOracles/SeriesPartsOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(SeriesPartsOracle.problems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
