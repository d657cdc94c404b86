import StepSyncCore

/// What the store holds of one type, from one source, in one unit: the figures that mean something for the type's
/// kind (`stepsync stats`).
///
/// | kind | meaningful |
/// |---|---|
/// | cumulative (steps, distance, energy) | ``sum`` |
/// | discrete (heart rate, HRV, weight) | ``minimum``, ``average``, ``maximum`` |
/// | category (sleep, mindful) and workouts | ``durationMs`` (the total of end − start) |
///
/// Every figure is filled in; a reader shows those of the kind.
public struct SampleStatistics: Hashable, Sendable {
    /// The sample type.
    public var type: SampleType
    /// The source name.
    public var source: String
    /// The unit of the values.
    public var unit: String
    /// The number of samples.
    public var samples: Int
    /// The sum of their values.
    public var sum: Double
    /// The smallest value.
    public var minimum: Double
    /// The largest value.
    public var maximum: Double
    /// The total of their durations (end − start), in milliseconds.
    public var durationMs: Int64
    /// The earliest sample start (UTC ms).
    public var firstStartMs: Int64
    /// The latest sample start (UTC ms).
    public var lastStartMs: Int64

    /// Creates statistics.
    public init(type: SampleType, source: String, unit: String, samples: Int, sum: Double, minimum: Double,
                maximum: Double, durationMs: Int64, firstStartMs: Int64, lastStartMs: Int64) {
        self.type = type
        self.source = source
        self.unit = unit
        self.samples = samples
        self.sum = sum
        self.minimum = minimum
        self.maximum = maximum
        self.durationMs = durationMs
        self.firstStartMs = firstStartMs
        self.lastStartMs = lastStartMs
    }

    /// The mean value.
    public var average: Double { samples > 0 ? sum / Double(samples) : 0 }

    /// The type's kind, which decides which figures mean something.
    public var kind: SampleKind { type.kind }

    /// Adds `other` (of the same type; its source and unit are not checked).
    public mutating func merge(_ other: SampleStatistics) {
        samples += other.samples
        sum += other.sum
        minimum = min(minimum, other.minimum)
        maximum = max(maximum, other.maximum)
        durationMs += other.durationMs
        firstStartMs = min(firstStartMs, other.firstStartMs)
        lastStartMs = max(lastStartMs, other.lastStartMs)
    }
}
