// fuzz-sources: core
// ISO8601Millis.parse on any bytes: round trips, the String/Substring entry points, and Foundation's
// ISO8601DateFormatter as a differential oracle (Tests/StepSyncCoreTests/FuzzOracles/ISO8601Oracle.swift).

nonisolated(unsafe) let oracle = ISO8601Oracle()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(oracle.problems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
