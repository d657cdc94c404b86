import StepSyncCore

extension SampleStorage {
    /// The default: the first and last start among ``stepSpans(overlapping:for:)`` of every instant (one full read;
    /// a storage with an index answers it faster, as ``JSONLStorage`` does).
    public func stepStartBounds(for client: ClientIdentity) async throws -> ClosedRange<Int64>? {
        let spans = try await stepSpans(overlapping: Instants.min..<Instants.max, for: client)
        guard let first = spans.first, let last = spans.last else { return nil }
        return first.startMs...last.startMs
    }

    /// The default: nothing known (the dashboard then shows only ``storageDescription``).
    public func usage() async throws -> StorageUsage { StorageUsage(items: []) }
}
