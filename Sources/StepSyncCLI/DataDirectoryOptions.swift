import ArgumentParser
import StepSyncStore

/// `--data-dir`, shared by every subcommand.
public struct DataDirectoryOptions: ParsableArguments {
    /// The data directory.
    @Option(name: .customLong("data-dir"), help: ArgumentHelp(
        "The data directory (health.sqlite, the interval ledger).",
        discussion: "Defaults to STEPSYNC_DATA_DIR, or .stepsync in the working directory.",
        valueName: "dir"))
    public var dataDir: String?

    public init() {}

    /// The data directory these options name.
    public var dataDirectory: DataDirectory {
        dataDir.map(DataDirectory.init(path:)) ?? .default()
    }

    /// Opens (creating if needed) the store of the data directory.
    public func openStore() throws -> StepStore {
        try StepStore(dataDirectory: dataDirectory)
    }

    /// Opens the store of the data directory for a command that only reads: a directory without a store is an
    /// error naming it, and nothing is created.
    public func openExistingStore() throws -> StepStore {
        try StepStore(existingDataDirectory: dataDirectory)
    }
}
