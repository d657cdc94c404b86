import StepSyncCore

extension JSONLStorage {
    /// The first and last start of each type's live samples, from the in-memory line tables (no file read: a scan
    /// of 16 bytes a sample).
    public func startBounds(of types: [SampleType], for client: ClientIdentity) async throws
        -> [SampleType: ClosedRange<Int64>]
    {
        var bounds: [SampleType: ClosedRange<Int64>] = [:]
        for type in Set(types) {
            guard let number = logNumbers[type] else { continue }
            let log = logs[number]
            var low = Int64.max, high = Int64.min
            log.slots.withElements { slots in
                for slot in slots.prefix(log.readable) where !slot.isDeleted {
                    low = min(low, slot.startMs)
                    high = max(high, slot.startMs)
                }
            }
            if low <= high { bounds[type] = low...high }
        }
        return bounds
    }

    /// Every data file and its size: `steps.jsonl` first, then `samples/<type>.jsonl` by name.
    public func usage() async throws -> StorageUsage {
        let items = logs.map { StorageUsage.Item(name: $0.file.path, bytes: $0.file.size()) }
        guard let steps = items.first else { return StorageUsage(items: []) }
        return StorageUsage(items: [steps] + items.dropFirst().sorted { $0.name < $1.name })
    }
}

extension JSONLStorage {
    /// The bytes of the storage's in-memory tables: the uuid index, the line slots and the start orders.
    public struct TableBytes: Sendable, Equatable {
        /// ``UUIDIndex/byteCount``.
        public var index: Int
        /// Every type's slots, 16 bytes a stored line (the pages written; the rest of the mapping takes none).
        public var slots: Int
        /// The start orders of the types somebody paged (``StartOrder``), 24 bytes a sample.
        public var startOrders: Int = 0
        /// All three.
        public var total: Int { index + slots + startOrders }
    }

    /// What the in-memory tables take now (`stepsync demo --json` reports it after the sync).
    public func tableBytes() -> TableBytes {
        TableBytes(index: index.byteCount,
                   slots: logs.reduce(0) { $0 + $1.slots.byteCount },
                   startOrders: logs.reduce(0) { $0 + ($1.startOrder?.byteCount ?? 0) })
    }
}
