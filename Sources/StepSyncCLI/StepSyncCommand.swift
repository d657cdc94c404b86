import ArgumentParser

/// The root command: `stepsync <subcommand>`.
public struct StepSyncCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "stepsync",
        abstract: "Import, layer and sync a decade of raw health samples in bounded, resumable, exactly-once chunks.",
        discussion: """
            Data lives in a data directory (--data-dir, default .stepsync, or STEPSYNC_DATA_DIR): the sample store \
            health.sqlite and the sync-interval ledger. Typical run: generate (or import) → layer → serve → sync.
            """,
        subcommands: StepSyncCommand.allSubcommands
    )

    public init() {}
}
