import StepSyncCore

/// A `<MetadataEntry key="HKTimeZone" value="Europe/Paris"/>` of a record or a workout, kept in the sample's
/// `details` as the pair `["HKTimeZone","Europe/Paris"]`: the one reading of it for both.
enum MetadataEntry {
    /// Appends the pair of `tag` (after a comma when it is not the first) to `metadata`; an entry without a key or a
    /// value adds nothing.
    ///
    /// - Throws: ``XMLProblem`` when the attributes are not well-formed XML.
    static func append(_ tag: XMLTag, to metadata: inout [UInt8]) throws {
        var key: String?, value: String?
        try XMLAttributes.forEach(tag.attributes, line: tag.line) { k, v in
            if XMLAttributes.equals(k, "key") { key = XMLAttributes.decode(v) }
            else if XMLAttributes.equals(k, "value") { value = XMLAttributes.decode(v) }
        }
        guard let key, let value else { return }
        JSONBytes.separator(&metadata)
        metadata.append(UInt8(ascii: "["))
        JSONBytes.appendString(key, to: &metadata)
        metadata.append(UInt8(ascii: ","))
        JSONBytes.appendString(value, to: &metadata)
        metadata.append(UInt8(ascii: "]"))
    }
}
