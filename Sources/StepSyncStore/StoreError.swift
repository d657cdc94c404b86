import StepSyncCore

/// An error of the sample store, with a message a user can act on.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable {
        case cannotOpen
        case cannotCreateDirectory
        case invalidSample
        case intervalsNotContiguous
        case unknownInterval
        case noStore
    }

    private let code: Code
    /// What went wrong, for people.
    public let message: String

    public var description: String { message }

    /// The database file could not be opened, created or migrated.
    public static func cannotOpen(path: String, reason: String) -> StoreError {
        StoreError(code: .cannotOpen, message: "cannot open the sample store \(path): \(reason)")
    }

    /// The data directory could not be created.
    public static func cannotCreateDirectory(path: String, reason: String) -> StoreError {
        StoreError(code: .cannotCreateDirectory, message: "cannot create the data directory \(path): \(reason)")
    }

    /// A sample was rejected before it reached the database.
    public static func invalidSample(_ reason: String) -> StoreError {
        StoreError(code: .invalidSample, message: "invalid sample: \(reason)")
    }

    /// New intervals would leave a gap or an overlap with the ledger.
    public static func intervalsNotContiguous(_ reason: String) -> StoreError {
        StoreError(code: .intervalsNotContiguous, message: "intervals are not contiguous: \(reason)")
    }

    /// No interval has this id.
    public static func unknownInterval(_ id: Int64) -> StoreError {
        StoreError(code: .unknownInterval, message: "no sync interval has id \(id)")
    }

    /// A read-only command was pointed at a data directory without a store; nothing was created.
    public static func noStore(path: String) -> StoreError {
        StoreError(code: .noStore, message: "no stepsync data in \(path) (no health.sqlite there; nothing was created): "
                   + "give the right --data-dir (or STEPSYNC_DATA_DIR), or fill it first with `stepsync generate` or `stepsync import`")
    }
}
