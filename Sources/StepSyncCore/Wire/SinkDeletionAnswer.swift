/// The sink's answer to `POST /steps/delete` and `POST /samples/delete` once the tombstones are durable:
/// `{"deleted":N,"missing":M}` — N uuids deleted now, M already gone (a resend after a crash moves uuids from
/// `deleted` to `missing`).
///
/// Written by hand like ``SinkIngestAnswer`` (the same bytes `JSONEncoder` with sorted keys would write).
public struct SinkDeletionAnswer: SinkAnswer, Hashable {
    /// Samples deleted by this request.
    public var deleted: Int
    /// uuids the sink did not hold (never sent, or deleted before).
    public var missing: Int

    public static var answerName: String { "a deletion acknowledgement" }

    /// Creates the answer to a request of `deleted + missing` uuids.
    public init(deleted: Int, missing: Int) {
        self.deleted = deleted
        self.missing = missing
    }

    /// `{"deleted":N,"missing":M}`.
    public func encoded() -> [UInt8] {
        JSONBytes.integerObject([(#"{"deleted":"#, deleted), (#","missing":"#, missing)])
    }

    /// The acknowledgement the sync's send machine works with: every uuid of the request is `saved` (gone from the
    /// sink), `deleted` of them by this request.
    public var acknowledgement: SinkAcknowledgement {
        SinkAcknowledgement(saved: deleted + missing, inserted: 0, duplicates: 0, deleted: deleted)
    }
}
