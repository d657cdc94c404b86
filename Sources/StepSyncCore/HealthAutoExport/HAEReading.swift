/// What ``HAEPayloadReader`` made of one Health Auto Export body: the samples to store and what it left out.
public struct HAEReading: Sendable {
    /// A point skipped, named for the answer: `metric` and `index` say where it was.
    public struct SkippedPoint: Hashable, Sendable {
        /// The metric's name (or `workouts`).
        public var metric: String
        /// The point's index in the metric's `data`.
        public var index: Int
        /// Why (`unreadableDate`, `negativeValue`, `nonFiniteValue`, `missingValue`, `invalidValue`,
        /// `unknownSleepStage`).
        public var reason: String
    }

    /// The samples, in body order (the uuids may repeat when the body repeats a point).
    public var samples: [HealthSample] = []
    /// Points skipped, per reason.
    public var skipped: [String: Int] = [:]
    /// The first ``maxNamedSkips`` points skipped.
    public var skippedPoints: [SkippedPoint] = []
    /// Entries of the arrays the sink does not store (`symptoms`, `ecg`, …), per array.
    public var notStored: [String: Int] = [:]
    /// Metric names the table does not know, kept under a type of their own.
    public var unknownMetrics: [String] = []

    /// How many skipped points are named.
    public static let maxNamedSkips = 20

    /// Creates an empty reading.
    public init() {}

    /// Counts a point skipped for `reason`.
    mutating func skip(_ metric: String, _ index: Int, _ reason: String) {
        skipped[reason, default: 0] += 1
        if skippedPoints.count < Self.maxNamedSkips {
            skippedPoints.append(SkippedPoint(metric: metric, index: index, reason: reason))
        }
    }
}
