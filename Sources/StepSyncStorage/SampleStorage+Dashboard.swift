import StepSyncCore

extension SampleStorage {
    /// The default: nothing known (the dashboard then shows only ``storageDescription``).
    public func usage() async throws -> StorageUsage { StorageUsage(items: []) }
}
