import Foundation
import StepSyncCore

/// A position in one client's samples of one type, in the order every page comes in — start, then uuid (by its
/// bytes): after the sample that starts at `startMs` with `uuid`. Its text, `<startMs>.<UUID>`, is the cursor both
/// storages give (``SamplePage/nextCursor``); clients treat it as opaque.
public struct StartCursor: Hashable, Sendable {
    /// The start of the last sample given (UTC ms).
    public var startMs: Int64
    /// Its uuid.
    public var uuid: UUID

    /// The position after the sample starting at `startMs` with `uuid`.
    public init(startMs: Int64, uuid: UUID) {
        self.startMs = startMs
        self.uuid = uuid
    }

    /// Parses a cursor's text, or nil when it is not one (an instant outside ``Instants``, a malformed uuid).
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].utf8.count <= 20, let ms = Int64(parts[0]), Instants.contains(ms),
              let uuid = UUID(uuidString: String(parts[1])) else { return nil }
        self.init(startMs: ms, uuid: uuid)
    }

    /// The cursor's text.
    public var text: String { "\(startMs).\(uuid.uuidString)" }
}
