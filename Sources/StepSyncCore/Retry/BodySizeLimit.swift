/// The largest request body the sync believes the sink (or a proxy in front of it) takes, learnt from its 413s and
/// remembered for the rest of the run: a value, no I/O.
///
/// Starts from `--max-request-bytes` (or from nothing: no limit known). Every 2xx raises ``largestAccepted``; every
/// 413 of a body of `b` bytes (not more than one sample) lowers the limit to
///
///     limit = min(b − 1, max(largestAccepted, b / 2))   (largestAccepted only when below b)
///
/// — half the refused size, but never below a size the sink took in this run, and always below the refused one. So
/// a limit of `L` behind a run of bodies of `B > L` bytes is found in ⌈log₂(B / L)⌉ refusals at most, and once found
/// every later request is cut to fit before it is sent (``RequestSplit``). With nginx's default 1 MiB and heart-rate
/// bodies of ≈ 1.5 MB: one 413, then parts of ≤ 750 KB.
///
/// | refused body | largest accepted | new limit |
/// |--------------|------------------|-----------|
/// | 1,500,000    | 0                | 750,000   |
/// | 1,500,000    | 900,000          | 900,000   |
/// | 800,000      | 900,000          | 400,000   |
public struct BodySizeLimit: Hashable, Sendable {
    /// The most bytes a request body should have; `nil` while no limit is known.
    public private(set) var limit: Int?
    /// The largest body acknowledged in this run.
    public private(set) var largestAccepted = 0
    /// How many 413s lowered the limit.
    public private(set) var refusals = 0

    /// The smallest limit ever set: a body is at least its brackets and one sample.
    public static let minimum = 64

    /// Creates the limit: `configured` bytes (`--max-request-bytes`), or none known.
    public init(configured: Int? = nil) {
        limit = configured.map { max(Self.minimum, $0) }
    }

    /// A body of `bytes` was acknowledged.
    public mutating func accepted(bodyBytes bytes: Int) {
        largestAccepted = max(largestAccepted, bytes)
    }

    /// A body of `bytes` was refused as too large (HTTP 413): lowers the limit below it. Returns the new limit.
    @discardableResult
    public mutating func refused(bodyBytes bytes: Int) -> Int {
        refusals += 1
        var next = bytes / 2
        if largestAccepted < bytes { next = max(next, largestAccepted) }
        next = max(Self.minimum, min(bytes - 1, next))
        limit = min(limit ?? next, next)
        return limit ?? next
    }
}
