// fuzz-sources: import
// The readers of an export's attachments (issue 25): byte 0 even, a workout route (GPXRoute); odd, an ECG file
// (ElectrocardiogramCSV). Refusals short and naming a real line; accepted files valid and read back the same when
// written out again (Tests/StepSyncImportTests/FuzzOracles/AttachmentsOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(AttachmentsOracle.problems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
