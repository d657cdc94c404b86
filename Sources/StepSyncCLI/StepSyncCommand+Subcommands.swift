import ArgumentParser

extension StepSyncCommand {
    /// Every subcommand, in the order `--help` lists them. Each lives in `Commands/<Name>.swift`.
    static var allSubcommands: [any ParsableCommand.Type] {
        [Stats.self, Delete.self, Serve.self, Sync.self, Reset.self]
    }
}
