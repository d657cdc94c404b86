import ArgumentParser
import StepSyncCore

/// The root command: `stepsync <subcommand>`.
public struct StepSyncCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "stepsync",
        abstract: "Import, layer and sync a decade of raw health samples in bounded, resumable, exactly-once chunks.",
        discussion: """
            Data lives in a data directory (--data-dir, default .stepsync, or STEPSYNC_DATA_DIR): the sample store \
            health.sqlite and the sync-interval ledger. Typical run: generate (or import) → layer → serve → sync. \
            Reporting commands take --json (instants in ISO-8601 UTC with milliseconds, durations in seconds; the \
            schemas are in docs/json/); tables for people show local time (--tz, STEPSYNC_TZ, else the system's).
            Examples:
              stepsync demo --years 1
              stepsync generate --years 10
              stepsync --generate-completion-script zsh > ~/.zfunc/_stepsync
            """,
        version: StepSyncVersion.current,
        subcommands: StepSyncCommand.allSubcommands
    )

    public init() {}
}
