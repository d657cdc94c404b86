// fuzz-sources: core
// WireDecoder.decodeSamplesRequest on any bytes, as a POST /samples body (every type): what it accepts passes
// SampleValidation, re-encodes to the same samples, stores as lines that read back the same, and is JSON to
// Foundation, details included (Tests/StepSyncCoreTests/FuzzOracles/WireOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(WireOracle.samplesRequestProblems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
