// fuzz-sources: core
// HAEPayloadReader on any bytes (byte 0 picks the aggregation): no trap, short refusals naming a field, valid
// samples read the same twice (Tests/StepSyncCoreTests/FuzzOracles/HAEPayloadOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(HAEPayloadOracle.problems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
