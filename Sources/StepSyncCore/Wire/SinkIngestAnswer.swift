/// The sink's answer to `POST /steps` and `POST /samples` once the samples are durable:
/// `{"saved":N,"message":"Success","inserted":I,"duplicates":D}`.
///
/// The sink sends one per request (of up to thousands of samples); its bytes are written by hand, in the key order
/// of the documented examples (`Planning/wire-format.md`, `Planning/sink.md`). Reading it, a sink from before
/// `inserted` and `duplicates` (which sent only `saved` and `message`) counts every sample as inserted.
public struct SinkIngestAnswer: SinkAnswer, Hashable {
    /// Samples the sink received in the request.
    public var saved: Int
    /// Samples it stored for the first time.
    public var inserted: Int
    /// Samples it already held (same uuid): a resend after a crash.
    public var duplicates: Int

    /// The `message` the sink sends with every acknowledgement.
    public static let message = "Success"

    public static var answerName: String { "an acknowledgement" }

    private enum CodingKeys: String, CodingKey {
        case saved, message, inserted, duplicates
    }

    /// Creates the answer to a request of `saved` samples, `inserted` of them new and `duplicates` already held.
    public init(saved: Int, inserted: Int, duplicates: Int) {
        self.saved = saved
        self.inserted = inserted
        self.duplicates = duplicates
    }

    /// Reads an answer; `inserted` defaults to `saved` and `duplicates` to the rest (sinks before those fields).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        saved = try container.decode(Int.self, forKey: .saved)
        inserted = try container.decodeIfPresent(Int.self, forKey: .inserted) ?? saved
        duplicates = try container.decodeIfPresent(Int.self, forKey: .duplicates) ?? saved - inserted
    }

    /// Writes `saved`, `message`, `inserted`, `duplicates` in that order (as ``encoded()`` does).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(saved, forKey: .saved)
        try container.encode(Self.message, forKey: .message)
        try container.encode(inserted, forKey: .inserted)
        try container.encode(duplicates, forKey: .duplicates)
    }

    /// `{"saved":N,"message":"Success","inserted":I,"duplicates":D}`.
    public func encoded() -> [UInt8] {
        JSONBytes.integerObject([
            (#"{"saved":"#, saved), (#","message":"Success","inserted":"#, inserted), (#","duplicates":"#, duplicates),
        ])
    }

    /// The acknowledgement the sync's send machine works with.
    public var acknowledgement: SinkAcknowledgement {
        SinkAcknowledgement(saved: saved, inserted: inserted, duplicates: duplicates)
    }
}
