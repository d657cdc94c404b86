/// An optional that a `--json` document writes as `null` when it is absent: a plain optional property's synthesised
/// `Encodable` leaves the key out, which the schemas that say `"type": ["string", "null"]` and require the key forbid.
struct JSONNullable<Wrapped: Encodable>: Encodable {
    /// The value, or `nil` for `null`.
    var value: Wrapped?

    init(_ value: Wrapped?) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}
