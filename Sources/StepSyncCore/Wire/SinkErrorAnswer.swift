import Foundation

/// The body of every error the sink answers (4xx and 5xx): `{"error":kind,"message":…}`, with the sample `index`
/// and the `field` at fault when the request is refused because of one sample —
/// `{"error":"negative_value","field":"value","index":3,"message":"sample 3: field \"value\" …"}` (keys sorted).
///
/// The sync leaves a sample a 4xx names out and resends the rest (``sampleRefusal(status:itemCount:)``), and shows
/// the message of any other error (``message(in:)``, which also reads other servers' error bodies).
public struct SinkErrorAnswer: SinkAnswer, Hashable {
    /// The machine-readable kind: an ``ErrorKind`` (`bad_request`, `not_found`, `storage_unavailable`,
    /// `too_many_types`, …) or, for a refused sample, its ``WireError`` or ``SampleProblem/Reason`` key
    /// (`malformed_json`, `negative_value`, …). A string, so an unknown key from a newer sink still reads.
    public var error: String
    /// What went wrong, for people.
    public var message: String
    /// The index of the sample at fault in the request's `samples` array.
    public var index: Int?
    /// The body field or query parameter at fault.
    public var field: String?

    public static var answerName: String { "the sink's error body" }

    /// Creates an error body.
    public init(error: String, message: String, index: Int? = nil, field: String? = nil) {
        self.error = error
        self.message = message
        self.index = index
        self.field = field
    }

    /// The refusal of sample ``index`` when there is one inside the request's `itemCount` samples: the reason and
    /// field cut to 64 characters, the message to 300.
    public func sampleRefusal(status: Int, itemCount: Int) -> SampleRefusal? {
        guard let index, index >= 0, index < itemCount else { return nil }
        return SampleRefusal(status: status, index: index, reason: String(error.prefix(64)),
                             field: field.map { String($0.prefix(64)) }, message: String(message.prefix(300)))
    }

    /// The message of an error body: this sink's ``message``, or another server's — Hummingbird's own
    /// `{"error":{"message":…}}`, `{"message":…}`, `{"error":"…"}`, or `{"reason":…}` (the degraded `/health`);
    /// `nil` when the body is none of these (the caller shows the text).
    public static func message(in body: some Collection<UInt8>) -> String? {
        (try? ForeignErrorBody(bytes: body))?.message
    }
}

/// The error bodies ``SinkErrorAnswer/message(in:)`` reads, each field optional and of any type.
private struct ForeignErrorBody: Decodable {
    var message: String?

    private enum CodingKeys: String, CodingKey {
        case error, message, reason
    }

    private struct Nested: Decodable {
        var message: String?
    }

    init(bytes: some Collection<UInt8>) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(bytes))
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) -> String? { try? container.decodeIfPresent(String.self, forKey: key) }
        message = (try? container.decodeIfPresent(Nested.self, forKey: .error))?.message
            ?? text(.message) ?? text(.error) ?? text(.reason)
    }
}
