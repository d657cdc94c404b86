import Foundation

/// An ECG recording put back together from the ``ElectrocardiogramPart``s a storage found by uuid: part 0 (the
/// recording's own uuid, which says how many parts there are) and whichever of parts `1..<count` arrived.
///
/// The voltages are those of the parts present, in part order; a part not (yet) there is listed in
/// ``missingParts`` and leaves a gap, so ``complete`` is false while a sync is still bringing it. Parts of another
/// recording, indices outside `0..<count` and repeats are ignored.
public struct AssembledElectrocardiogram: Hashable, Sendable {
    /// The recording's uuid (part 0's).
    public var recording: UUID
    /// The recording's header (part 0's).
    public var header: ElectrocardiogramHeader
    /// How many parts the recording has.
    public var partCount: Int
    /// The voltages of the parts present, in order.
    public var microvolts: [Double]
    /// The indices of the parts not present, ascending.
    public var missingParts: [Int]

    /// Whether every part is present.
    public var complete: Bool { missingParts.isEmpty }

    /// Assembles `first` (part 0) and `others` (any order).
    public init(first: ElectrocardiogramPart, others: [ElectrocardiogramPart]) {
        recording = first.recording
        header = first.header
        (microvolts, missingParts, partCount) = ElectrocardiogramPart.assemble(first: first, others: others)
    }

    /// The uuids of parts `1..<count` of `recording`: what a sink looks up once part 0 has said the count.
    public static func otherPartUUIDs(recording: UUID, count: Int) -> [UUID] {
        count > 1 ? (1..<count).map { ElectrocardiogramPart.uuid(recording: recording, index: $0) } : []
    }
}
