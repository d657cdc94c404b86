// fuzz-sources: core
// WireDecoder.decodeSample on any bytes, as one stored line of steps.jsonl (what the sink reads back at start):
// what it accepts is valid, re-encodes to one line with the same sample, and reads the same inside a request
// (Tests/StepSyncCoreTests/FuzzOracles/WireOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(WireOracle.lineProblems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
