// fuzz-sources: core
// DeletionRequest.parse on any body of POST /steps/delete (first byte even) or POST /samples/delete (odd): what it
// accepts is what JSONSerialization reads and re-encodes to itself; refusals name their field and quote little
// (Tests/StepSyncCoreTests/FuzzOracles/DeletionOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(DeletionOracle.problems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
