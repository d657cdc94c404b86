/// A workout the Watch records: its activity and span, planned from the day's bouts (runs, long walks) or in a free
/// stretch of the day (cycling, strength training, yoga).
struct PlannedWorkout: Hashable {
    /// What the person does.
    enum Activity: Hashable {
        case running, walking, cycling, strength, yoga

        /// HealthKit's `HKWorkoutActivityType…` name, as exports write it.
        var identifier: String {
            switch self {
            case .running: "HKWorkoutActivityTypeRunning"
            case .walking: "HKWorkoutActivityTypeWalking"
            case .cycling: "HKWorkoutActivityTypeCycling"
            case .strength: "HKWorkoutActivityTypeTraditionalStrengthTraining"
            case .yoga: "HKWorkoutActivityTypeYoga"
            }
        }

        /// Whether it happens indoors (`HKIndoorWorkout`).
        var indoor: Bool { self == .strength || self == .yoga }

        /// The distance type its statistics carry, if any.
        var distanceType: String? {
            switch self {
            case .running, .walking: "HKQuantityTypeIdentifierDistanceWalkingRunning"
            case .cycling: "HKQuantityTypeIdentifierDistanceCycling"
            case .strength, .yoga: nil
            }
        }

        /// Active energy burned, kcal per minute, for one at `cadence` steps a minute (runs and walks).
        func energyRate(cadence: Double) -> ClosedRange<Double> {
            switch self {
            case .running, .walking: let r = RealisticTypesRecorder.energyRate(cadence: cadence); return r * 0.95...r * 1.05
            case .cycling: return 8...11
            case .strength: return 5...7
            case .yoga: return 2.5...4
            }
        }

        /// The heart rate it settles at, for one at `cadence` steps a minute (runs and walks).
        func heartRate(cadence: Double) -> Double {
            switch self {
            case .running: 148 + (cadence - 155) * 0.8
            case .walking: 95 + (cadence - 90) * 0.6
            case .cycling: 132
            case .strength: 112
            case .yoga: 82
            }
        }
    }

    /// What the person does.
    var activity: Activity
    /// Start (UTC ms).
    var startMs: Int64
    /// End (UTC ms).
    var endMs: Int64
    /// The steps a minute of its bout (0 without one).
    var cadence: Double

    /// Whether `ms` is inside the workout.
    func contains(_ ms: Int64) -> Bool { ms >= startMs && ms < endMs }

    /// Whether `[startMs, endMs]` lies within the workout.
    func contains(startMs: Int64, endMs: Int64) -> Bool { startMs >= self.startMs && endMs <= self.endMs }
}
