import Foundation

/// A workout's route put back together from the ``RoutePart``s a storage found by uuid: part 0 (which says how many
/// parts there are) and whichever of parts `1..<count` arrived.
///
/// The points are those of the parts present, in part order; a part not (yet) there is listed in ``missingParts``
/// and leaves a gap, so ``complete`` is false while a sync is still bringing the route. Parts of another workout,
/// indices outside `0..<count` and repeats are ignored (the first of a repeated index is kept).
public struct AssembledRoute: Hashable, Sendable {
    /// The workout the route belongs to.
    public var workout: UUID
    /// The route's file in the export (`/workout-routes/….gpx`), when known.
    public var file: String?
    /// How many parts the route has (part 0's count).
    public var partCount: Int
    /// The points of the parts present, in order.
    public var points: [RoutePoint]
    /// The indices of the parts not present, ascending.
    public var missingParts: [Int]

    /// Whether every part is present.
    public var complete: Bool { missingParts.isEmpty }

    /// Assembles `first` (part 0 of the route) and `others` (any order).
    public init(first: RoutePart, others: [RoutePart]) {
        workout = first.workout
        file = first.file
        (points, missingParts, partCount) = RoutePart.assemble(first: first, others: others)
    }

    /// The uuids of parts `1..<count` of `workout`'s route: what a sink looks up once part 0 has said the count.
    public static func otherPartUUIDs(workout: UUID, count: Int) -> [UUID] {
        count > 1 ? (1..<count).map { RoutePart.uuid(workout: workout, index: $0) } : []
    }
}
