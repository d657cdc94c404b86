import Foundation

/// A position in the `(start, uuid)` order of samples: the last sample of the previous page.
public struct SampleCursor: Hashable, Sendable {
    /// The start of the last sample returned.
    public var startMs: Int64
    /// The uuid of the last sample returned.
    public var uuid: UUID

    /// Creates a cursor after the sample with this start and uuid.
    public init(startMs: Int64, uuid: UUID) {
        self.startMs = startMs
        self.uuid = uuid
    }
}
