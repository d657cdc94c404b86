import StepSyncCLI
import StepSyncSQLiteSetup

@main
enum Entrypoint {
    static func main() async {
        // Before any thread opens a store: SQLite's allocation statistics off, so its every malloc and free no longer
        // takes a process-wide mutex (4 % of an import's CPU, Planning/import.md). Nothing reads the statistics.
        _ = stepsync_sqlite_disable_memory_statistics()
        await StepSyncCommand.main()
    }
}
