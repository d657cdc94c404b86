import StepSyncCore

/// Where a request body goes on the sink.
public enum SinkEndpoint: String, Hashable, Sendable, CaseIterable {
    /// `POST /steps`: step counts in the HealthStepsSync wire (`{"samples":[{…,"count":…}]}`).
    case steps = "/steps"
    /// `POST /steps/delete`: deleted step samples (`{"uuids":[…]}`).
    case stepsDelete = "/steps/delete"
    /// `POST /samples`: every other type (`{"samples":[{…,"type":…,"value":…}]}`).
    case samples = "/samples"
    /// `POST /samples/delete`: deleted samples of one other type (`{"type":…,"uuids":[…]}`).
    case samplesDelete = "/samples/delete"

    /// The path.
    public var path: String { rawValue }

    /// Whether the sink answers with a deletion acknowledgement (`{"deleted","missing"}`).
    public var isDeletion: Bool { self == .stepsDelete || self == .samplesDelete }

    /// Whether a sink may not serve it at all: `/samples` and `/samples/delete` (a sink of the HealthStepsSync wire,
    /// an older stepsync, serves only the step counts' endpoints); a 404 or 405 there is a fact about the sink.
    public var isOptional: Bool { self == .samples || self == .samplesDelete }

    /// The endpoint of an interval: step counts keep `/steps` (HealthStepsSync clients and sinks keep working), every
    /// other type goes to `/samples`.
    public static func of(_ interval: SyncInterval) -> SinkEndpoint {
        switch (interval.type == .stepCount, interval.kind) {
        case (true, .samples): return .steps
        case (true, .deletions): return .stepsDelete
        case (false, .samples): return .samples
        case (false, .deletions): return .samplesDelete
        }
    }
}
