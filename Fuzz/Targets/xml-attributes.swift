// fuzz-sources: import
// The importer's attribute-level decoders on any bytes: XMLAttributes (pairs, entities), HealthDate (against
// ISO8601Millis), RecordDecoder.number (against Double(String)), RecordDecoder.decode and HealthDevice
// (Tests/StepSyncImportTests/FuzzOracles/XMLAttributesOracle.swift).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzFail(XMLAttributesOracle.problems(UnsafeRawBufferPointer(start: data, count: size)))
    return 0
}
