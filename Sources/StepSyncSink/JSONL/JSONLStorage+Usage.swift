import StepSyncCore

extension JSONLStorage {
    /// The first and last start of the live step samples, from the in-memory line table (no file read).
    public func stepStartBounds(for client: ClientIdentity) async throws -> ClosedRange<Int64>? {
        guard let number = logNumbers[.stepCount] else { return nil }
        let log = logs[number]
        var low = Int64.max, high = Int64.min
        for i in 0..<log.readable where !log.slots[i].isDeleted {
            let slot = log.slots[i]
            low = min(low, slot.startMs)
            high = max(high, slot.startMs)
        }
        return low <= high ? low...high : nil
    }

    /// Every data file and its size: `steps.jsonl` first, then `samples/<type>.jsonl` by name.
    public func usage() async throws -> StorageUsage {
        let items = logs.map { StorageUsage.Item(name: $0.file.path, bytes: $0.file.size()) }
        guard let steps = items.first else { return StorageUsage(items: []) }
        return StorageUsage(items: [steps] + items.dropFirst().sorted { $0.name < $1.name })
    }
}

extension JSONLStorage {
    /// The bytes of the storage's in-memory tables: the uuid index and the line slots (their capacity).
    public struct TableBytes: Sendable, Equatable {
        /// ``UUIDIndex/byteCount``.
        public var index: Int
        /// Every type's slots, 16 bytes a stored line (the pages written; the rest of the mapping takes none).
        public var slots: Int
        /// Both.
        public var total: Int { index + slots }
    }

    /// What the in-memory tables take now (`stepsync demo --json` reports it after the sync).
    public func tableBytes() -> TableBytes {
        TableBytes(index: index.byteCount,
                   slots: logs.reduce(0) { $0 + $1.slots.byteCount })
    }
}
