import Foundation

/// The layout of a stepsync data directory (default `.stepsync`, or `STEPSYNC_DATA_DIR`).
///
/// ```
/// <data-dir>/health.sqlite      the sample store and the interval ledger
/// <data-dir>/sync.lock          held by the one running `stepsync sync`
/// <data-dir>/sink/steps.jsonl   what `stepsync serve` stores, by default
/// ```
public struct DataDirectory: Sendable, Hashable {
    /// The directory's path.
    public let path: String

    /// Names a data directory; nothing is created until ``create()``.
    public init(path: String) {
        self.path = path
    }

    /// The directory from `STEPSYNC_DATA_DIR`, or `.stepsync` in the working directory.
    public static func `default`(environment: [String: String] = ProcessInfo.processInfo.environment) -> DataDirectory {
        DataDirectory(path: environment["STEPSYNC_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? ".stepsync")
    }

    /// `health.sqlite`: the sample store and the interval ledger.
    public var storePath: String { (path as NSString).appendingPathComponent("health.sqlite") }

    /// `sync.lock`: held by the running sync.
    public var syncLockPath: String { (path as NSString).appendingPathComponent("sync.lock") }

    /// `sink/steps.jsonl`: the sink's default data file.
    public var sinkDataPath: String { (path as NSString).appendingPathComponent("sink/steps.jsonl") }

    /// Creates the directory (and its parents) if it does not exist.
    ///
    /// - Throws: ``StoreError`` naming the directory when it cannot be created or is not writable.
    public func create() throws {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StoreError.cannotCreateDirectory(path: path, reason: "a file of that name exists")
            }
        } else {
            do {
                try fm.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw StoreError.cannotCreateDirectory(path: path, reason: (error as NSError).localizedDescription)
            }
        }
        guard fm.isWritableFile(atPath: path) else {
            throw StoreError.cannotCreateDirectory(path: path, reason: "the directory is not writable")
        }
    }
}
