// fuzz-sources: core
// DailyStepsRequest.parse(from:to:tz:priority:) on any four texts (the query parameters of GET /steps/daily, and
// stats --daily's options), separated by 0xFF bytes: what it accepts is exactly what was given and a valid range of
// days; what it refuses names the first parameter at fault and quotes little
// (Tests/StepSyncCoreTests/FuzzOracles/DailyRequestOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(DailyRequestOracle.problems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
