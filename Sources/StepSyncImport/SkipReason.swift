import StepSyncCore

/// Why the importer skipped one record (or workout) and went on with the rest of the file.
///
/// A record-level problem never refuses the file: the record is skipped, counted under its reason's ``key`` (the key
/// of `import --json`'s `"skipped"` object) and, for the first few, named with its line (``SkippedRecord``). Semantic
/// problems are the shared ones of ``SampleValidation`` (the same reasons the store and the sink use); problems of
/// reading the export itself are the importer's own.
public enum SkipReason: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// An attribute the DTD marks `#REQUIRED` is absent (`type`, `sourceName`, `startDate`, `endDate`,
    /// `workoutActivityType`).
    case missingAttribute
    /// A quantity record has no `value` (a category record without one is stored as "not applicable", 0).
    case missingValue
    /// A value is not a number (`12,5`), or a duration unit is unknown, or a child's number cannot be read.
    case unreadableValue
    /// A date is not a date (`2019-13-01 08:00:00 +0100`).
    case unreadableDate
    /// A category value is a `HKCategoryValue…` label this importer does not know.
    case unknownCategoryValue
    /// A workout's route file (`/workout-routes/….gpx`) cannot be read as GPX (``GPXRouteError``: a point without a
    /// time or coordinates, a number that is not one, a tag that never ends, a file over ``GPXRoute/maxBytes``).
    case unreadableRoute
    /// A workout names a route file (`<FileReference path="/workout-routes/…"/>`) that the export does not hold.
    case missingRouteFile
    /// An ECG file (`/electrocardiograms/….csv`) cannot be read (``ElectrocardiogramCSVError``: no recorded date or
    /// sample rate, a voltage that is not a number, no voltages, a file over ``ElectrocardiogramCSV/maxBytes``).
    case unreadableElectrocardiogram
    /// The record was read but ``SampleValidation`` refuses it (out-of-range instant, end before start, negative
    /// cumulative value, …).
    case invalid(SampleProblem.Reason)

    /// The stable snake_case key: `missing_value`, `unreadable_date`, `end_before_start`, …
    public var key: String {
        switch self {
        case .missingAttribute: return "missing_attribute"
        case .missingValue: return "missing_value"
        case .unreadableValue: return "unreadable_value"
        case .unreadableDate: return "unreadable_date"
        case .unknownCategoryValue: return "unknown_category_value"
        case .unreadableRoute: return "unreadable_route"
        case .missingRouteFile: return "missing_route_file"
        case .unreadableElectrocardiogram: return "unreadable_electrocardiogram"
        case .invalid(let reason): return reason.rawValue
        }
    }

    public var description: String { key }

    public static func < (lhs: SkipReason, rhs: SkipReason) -> Bool { lhs.key < rhs.key }
}

/// One skipped record, named for people: where it is and why it was skipped.
public struct SkippedRecord: Hashable, Sendable, CustomStringConvertible {
    /// The line of the element's start tag (1-based); for a damaged route or ECG file, the line of that file at
    /// fault (0 when the whole file is).
    public var line: Int
    /// `Record` or `Workout`; `WorkoutRoute` for a route file, `Electrocardiogram` for an ECG file.
    public var element: String
    /// The route or ECG file of the export that ``line`` counts in (`/workout-routes/route_….gpx`), when it is not
    /// `export.xml` itself.
    public var file: String?
    /// The record's `type` (or the workout's activity type), when it has one; at most 128 bytes.
    public var type: String?
    /// Why it was skipped.
    public var reason: SkipReason
    /// What is wrong, naming the attribute and quoting at most 64 bytes of its value.
    public var detail: String

    /// Creates a description of a skipped record.
    public init(line: Int, element: String, type: String?, reason: SkipReason, detail: String, file: String? = nil) {
        self.line = line
        self.element = element
        self.file = file
        self.type = type
        self.reason = reason
        self.detail = detail
    }

    /// `line 12: Record HKQuantityTypeIdentifierStepCount skipped (missing_value): it has no value attribute`.
    ///
    /// A file's (whose detail names the file and line):
    /// `WorkoutRoute skipped (unreadable_route): /workout-routes/route_….gpx line 7 has a <trkpt> without a <time>`.
    public var description: String {
        if file != nil {
            return "\(element)\(type.map { " \($0)" } ?? "") skipped (\(reason.key)): \(detail)"
        }
        return "line \(line): \(element)\(type.map { " \($0)" } ?? "") skipped (\(reason.key)): \(detail)"
    }
}
