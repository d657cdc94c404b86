/// The limits of the intervals of every sample type, decided by the type's ``SampleKind``.
///
/// | kind | bounded by |
/// |---|---|
/// | step counts | ``maxSteps`` (10,000) and ``maxSamples`` (5,000) |
/// | other cumulative types (distance, energy, flights…) | ``maxSamples``, and a sum limit when one is given in ``maxSums`` |
/// | discrete, category, workout | ``maxSamples`` (a sum of heart rates or sleep codes means nothing) |
/// | series (route parts, ECG parts: ≤ 56 KiB each) | ``maxSamples`` and at most ``SeriesLimits/maxPartsPerInterval`` |
///
/// ```swift
/// let limits = LayeringLimits(maxSteps: 10_000, maxSamples: 5_000,
///                             maxSums: [.distanceWalkingRunning: 20])
/// let engine = limits.engine(for: .heartRate)   // ≤ 5,000 samples, no sum limit
/// ```
public struct LayeringLimits: Hashable, Sendable {
    /// The most samples an interval of any type may hold unless its content cannot be split.
    public var maxSamples: Int
    /// Sum limits by type; step counts always have one (``maxSteps``). Only cumulative types take one.
    public private(set) var maxSums: [SampleType: Double]

    /// Creates limits.
    ///
    /// - Parameters:
    ///   - maxSteps: the step limit of a step-count interval (> 0).
    ///   - maxSamples: the sample limit of every interval (> 0).
    ///   - maxSums: sum limits of other cumulative types (> 0 each); entries for other kinds are ignored (see
    ///     ``sumLimitProblem(_:_:)`` to refuse them before).
    public init(maxSteps: Double = 10_000, maxSamples: Int = 5_000, maxSums: [SampleType: Double] = [:]) {
        precondition(maxSamples > 0, "maxSamples must be positive")
        self.maxSamples = maxSamples
        self.maxSums = maxSums.filter { $0.key.kind == .cumulative }
        self.maxSums[.stepCount] = maxSteps
    }

    /// The step limit of a step-count interval.
    public var maxSteps: Double { maxSums[.stepCount] ?? 10_000 }

    /// The sum limit of `type`'s intervals, or `nil` when only ``maxSamples`` bounds them.
    public func maxSum(of type: SampleType) -> Double? { maxSums[type] }

    /// The engine that layers `type` within these limits, aiming at `maxBucketsPerQuery` buckets per query.
    public func engine(for type: SampleType, maxBucketsPerQuery: Int = 16_384) -> LayeringEngine {
        LayeringEngine(maxSteps: maxSum(of: type) ?? .infinity,
                       maxSamples: type.kind == .series ? min(maxSamples, SeriesLimits.maxPartsPerInterval) : maxSamples,
                       maxBucketsPerQuery: maxBucketsPerQuery)
    }

    /// Why a sum limit of `value` for `type` cannot be used (for people), or `nil` when it can.
    public static func sumLimitProblem(_ type: SampleType, _ value: Double) -> String? {
        guard type.kind == .cumulative else {
            return "\(type.shortName) is a \(type.kind.rawValue) type: its values do not add up, so only --max-samples bounds its intervals"
        }
        guard value > 0, value.isFinite else { return "the sum limit of \(type.shortName) must be a positive number" }
        return nil
    }
}
