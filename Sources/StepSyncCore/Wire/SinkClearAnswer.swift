/// The sink's answer to `DELETE /steps` and `DELETE /samples[?type=T]` (emptying the client's step counts, one type
/// or everything): `{"message":"Deleted N samples","deleted":N}`.
///
/// Written by hand in the key order of the documented example (`Planning/sink.md`); the message is derived from
/// `deleted`, so reading ignores it.
public struct SinkClearAnswer: SinkAnswer, Hashable {
    /// Samples deleted.
    public var deleted: Int

    public static var answerName: String { "the answer to a DELETE" }

    private enum CodingKeys: String, CodingKey {
        case message, deleted
    }

    /// Creates the answer to a DELETE that removed `deleted` samples.
    public init(deleted: Int) {
        self.deleted = deleted
    }

    /// Reads `deleted`; `message` is for people and ignored.
    public init(from decoder: any Decoder) throws {
        deleted = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .deleted)
    }

    /// Writes `message` then `deleted` (as ``encoded()`` does).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(message, forKey: .message)
        try container.encode(deleted, forKey: .deleted)
    }

    /// `Deleted N samples`.
    public var message: String { "Deleted \(deleted) samples" }

    /// `{"message":"Deleted N samples","deleted":N}`.
    public func encoded() -> [UInt8] {
        JSONBytes.integerObject([(#"{"message":"Deleted "#, deleted), (#" samples","deleted":"#, deleted)])
    }
}
