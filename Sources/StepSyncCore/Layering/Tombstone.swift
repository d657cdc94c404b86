import Foundation

/// A deleted sample, as HealthKit's deleted objects: what an incremental sync sends as a deletion.
public struct Tombstone: Hashable, Sendable {
    /// The change sequence the deletion took.
    public var seq: Int64
    /// The deleted sample's uuid.
    public var uuid: UUID
    /// The deleted sample's start (UTC ms).
    public var startMs: Int64

    /// Creates a tombstone.
    public init(seq: Int64, uuid: UUID, startMs: Int64) {
        self.seq = seq
        self.uuid = uuid
        self.startMs = startMs
    }
}
