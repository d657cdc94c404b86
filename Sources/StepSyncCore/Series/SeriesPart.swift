import Foundation

/// What the parts of a series share (``RoutePart``, ``ElectrocardiogramPart``): whose series they are, where they
/// stand in it and what they carry — all a series needs to be put back together (``assemble(first:others:)``).
public protocol SeriesPart: Sendable {
    /// One point of the series (a GPS point, a voltage).
    associatedtype Element: Sendable
    /// The record the series belongs to (the workout, the recording).
    var owner: UUID { get }
    /// The part's index (0-based).
    var index: Int { get }
    /// How many parts the series has.
    var count: Int { get }
    /// The part's points, in order.
    var elements: [Element] { get }
    /// The uuid of part `index` of `owner`'s series.
    static func uuid(owner: UUID, index: Int) -> UUID
    /// The sample type the parts are stored as.
    static var sampleType: SampleType { get }
    /// The part a stored sample's `details` hold, checked as a sink checks it on the way in.
    init(details: String) throws(SeriesDetailsError)
}

extension SeriesPart {
    /// Puts a series back together from `first` (its part 0, which says how many parts there are) and `others` (any
    /// order): the points of the parts present in part order, and the indices of the parts not present (a gap each).
    /// Parts of another owner, indices outside `1..<count` and repeats (after the first) are ignored.
    public static func assemble(first: Self, others: [Self]) -> (elements: [Element], missingParts: [Int], partCount: Int) {
        let partCount = max(first.count, 1)
        var byIndex: [Self?] = Array(repeating: nil, count: partCount)
        byIndex[0] = first
        for part in others where part.owner == first.owner && part.index > 0 && part.index < partCount
            && byIndex[part.index] == nil
        {
            byIndex[part.index] = part
        }
        var elements: [Element] = []
        elements.reserveCapacity(byIndex.reduce(0) { $0 + ($1?.elements.count ?? 0) })
        var missing: [Int] = []
        for (index, part) in byIndex.enumerated() {
            if let part { elements += part.elements } else { missing.append(index) }
        }
        return (elements, missing, partCount)
    }
}

extension RoutePart: SeriesPart {
    /// The workout.
    public var owner: UUID { workout }
    /// The points.
    public var elements: [RoutePoint] { points }
    /// ``uuid(workout:index:)``.
    public static func uuid(owner: UUID, index: Int) -> UUID { uuid(workout: owner, index: index) }
    /// ``SampleType/workoutRoute``.
    public static var sampleType: SampleType { .workoutRoute }
}

extension ElectrocardiogramPart: SeriesPart {
    /// The recording.
    public var owner: UUID { recording }
    /// The voltages.
    public var elements: [Double] { microvolts }
    /// ``uuid(recording:index:)``.
    public static func uuid(owner: UUID, index: Int) -> UUID { uuid(recording: owner, index: index) }
    /// ``SampleType/electrocardiogram``.
    public static var sampleType: SampleType { .electrocardiogram }
}
