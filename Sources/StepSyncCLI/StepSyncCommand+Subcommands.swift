import ArgumentParser

extension StepSyncCommand {
    /// Every subcommand, in the order `--help` lists them. Each lives in `Commands/<Name>.swift`.
    static var allSubcommands: [any ParsableCommand.Type] {
        [Demo.self, Generate.self, Import.self, Stats.self, Layer.self, Chunks.self, Status.self, Serve.self, Clients.self,
         Sync.self, Delete.self, Export.self, Reset.self]
    }
}
