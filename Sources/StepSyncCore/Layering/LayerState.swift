/// What the layering runs of one type have covered so far.
///
/// Every sample of the type with a change sequence `≤ anchor`, and every tombstone `≤ anchor` that the sink had not
/// acknowledged, is in some interval of the ledger; the backfill intervals cover `[…, layeredEndMs)`. The next run
/// only looks at what came after the anchor.
public struct LayerState: Hashable, Sendable {
    /// The store's change sequence at the last layering run.
    public var anchor: Int64
    /// The end of the last backfill interval, or `nil` while the type has none (it only had deletions to send).
    public var layeredEndMs: Int64?

    /// Creates a state.
    public init(anchor: Int64, layeredEndMs: Int64?) {
        self.anchor = anchor
        self.layeredEndMs = layeredEndMs
    }
}
