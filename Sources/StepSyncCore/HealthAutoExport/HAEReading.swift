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

    /// Samples already taken out with ``handOff()``, per type.
    public private(set) var handedOff: [SampleType: Int] = [:]

    /// How many skipped points are named.
    public static let maxNamedSkips = 20

    /// Creates an empty reading.
    public init() {}

    /// An empty reading of the body `map` maps: its arrays not stored and its unknown metric names.
    public init(_ map: HAEBodyMap) {
        notStored = map.notStored
        unknownMetrics = map.unknownMetrics
    }

    /// Samples read per type: those handed off and those still held.
    public var types: [SampleType: Int] {
        var types = handedOff
        for sample in samples { types[sample.type, default: 0] += 1 }
        return types
    }

    /// Takes the samples read so far out of the reading (to store them), counting them in ``types``.
    public mutating func handOff() -> [HealthSample] {
        let taken = samples
        samples = []
        for sample in taken { handedOff[sample.type, default: 0] += 1 }
        return taken
    }

    /// Counts a point skipped for `reason`.
    mutating func skip(_ metric: String, _ index: Int, _ reason: String) {
        skipped[reason, default: 0] += 1
        if skippedPoints.count < Self.maxNamedSkips {
            skippedPoints.append(SkippedPoint(metric: metric, index: index, reason: reason))
        }
    }
}
