import Foundation

/// A stored sample the sync left out because it is not valid: found by the engine's own ``SampleValidation`` before
/// sending, or named by the sink in a refusal. It is never sent; the rest of its interval is.
///
/// Kept in the store (`rejected_sample`), shown by `sync --json`, the sync summary and `status`.
public struct RejectedSample: Hashable, Sendable {
    /// Who found the sample invalid.
    public enum Finder: String, Hashable, Sendable {
        /// The engine, with ``SampleValidation``, before sending.
        case engine
        /// The sink, which refused the request naming the sample.
        case sink
    }

    /// The sample's uuid.
    public var uuid: UUID
    /// Its type.
    public var type: SampleType
    /// The stable reason key: a ``SampleProblem/Reason`` raw value (`negative_value`, `instant_out_of_range`, …) or
    /// the sink's own key (`invalid_count`, …).
    public var reason: String
    /// The field at fault (`startDate`, `value`, `sourceName`, …), when known.
    public var field: String?
    /// A short explanation (never more than a short prefix of the offending value).
    public var detail: String
    /// The ledger interval the sample belongs to, when known.
    public var intervalId: Int64?
    /// Who found it.
    public var foundBy: Finder
    /// When it was rejected, UTC milliseconds since 1970.
    public var atMs: Int64

    /// Creates a record.
    public init(uuid: UUID, type: SampleType, reason: String, field: String?, detail: String, intervalId: Int64?,
                foundBy: Finder, atMs: Int64) {
        self.uuid = uuid
        self.type = type
        self.reason = reason
        self.field = field
        self.detail = detail
        self.intervalId = intervalId
        self.foundBy = foundBy
        self.atMs = atMs
    }

    /// The record of `sample`, which ``SampleValidation`` found invalid with `problem`.
    public init(_ sample: HealthSample, problem: SampleProblem, intervalId: Int64?, atMs: Int64) {
        self.init(uuid: sample.uuid, type: sample.type, reason: problem.reason.rawValue, field: problem.field,
                  detail: problem.description, intervalId: intervalId, foundBy: .engine, atMs: atMs)
    }

    /// The record of `sample`, which the sink refused with `refusal`.
    public init(_ sample: HealthSample, refusal: SampleRefusal, intervalId: Int64?, atMs: Int64) {
        self.init(uuid: sample.uuid, type: sample.type, reason: refusal.reason, field: refusal.field,
                  detail: String(refusal.description.prefix(200)), intervalId: intervalId, foundBy: .sink, atMs: atMs)
    }
}
