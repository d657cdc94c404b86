import Foundation

/// A series put back together from the parts a storage found by uuid: part 0 (which says how many parts there are)
/// and whichever of parts `1..<count` arrived (``SeriesPart/assemble(first:others:)``).
///
/// The elements are those of the parts present, in part order; a part not (yet) there is listed in ``missingParts``
/// and leaves a gap, so ``complete`` is false while a sync is still bringing it. Parts of another owner, indices
/// outside `0..<count` and repeats are ignored (the first of a repeated index is kept).
public struct AssembledSeries<Part: SeriesPart & Hashable>: Hashable, Sendable where Part.Element: Hashable {
    /// Part 0: whose series it is and what only it carries (a route's file, a recording's header); its own elements
    /// are also the first of ``elements``.
    public var head: Part
    /// How many parts the series has (part 0's count).
    public var partCount: Int
    /// The elements of the parts present, in order.
    public var elements: [Part.Element]
    /// The indices of the parts not present, ascending.
    public var missingParts: [Int]

    /// Whether every part is present.
    public var complete: Bool { missingParts.isEmpty }

    /// Assembles `first` (part 0) and `others` (any order).
    public init(first: Part, others: [Part]) {
        head = first
        (elements, missingParts, partCount) = Part.assemble(first: first, others: others)
    }

    /// The uuids of parts `1..<count` of `owner`'s series: what a sink looks up once part 0 has said the count.
    public static func otherPartUUIDs(owner: UUID, count: Int) -> [UUID] {
        count > 1 ? (1..<count).map { Part.uuid(owner: owner, index: $0) } : []
    }
}

/// A workout's route put back together from its ``RoutePart``s.
public typealias AssembledRoute = AssembledSeries<RoutePart>

/// An ECG recording put back together from its ``ElectrocardiogramPart``s.
public typealias AssembledElectrocardiogram = AssembledSeries<ElectrocardiogramPart>

extension AssembledSeries where Part == RoutePart {
    /// The workout the route belongs to.
    public var workout: UUID { head.workout }
    /// The route's file in the export (`/workout-routes/….gpx`), when known.
    public var file: String? {
        get { head.file }
        set { head.file = newValue }
    }
    /// The points of the parts present, in order.
    public var points: [RoutePoint] { elements }
}

extension AssembledSeries where Part == ElectrocardiogramPart {
    /// The recording's uuid (part 0's).
    public var recording: UUID { head.recording }
    /// The recording's header (part 0's).
    public var header: ElectrocardiogramHeader { head.header }
    /// The voltages of the parts present, in order.
    public var microvolts: [Double] { elements }
}
