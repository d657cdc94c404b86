import StepSyncCLI
import StepSyncSQLiteSetup

@main
enum Entrypoint {
    static func main() async {
        // Before any thread opens a store: SQLite's allocation statistics off, so its every malloc and free no longer
        // takes a process-wide mutex (4 % of an import's CPU, Planning/import.md). Nothing reads the statistics.
        // Nothing has used SQLite yet, so this cannot meet SQLITE_MISUSE (21), which would only leave them on.
        let status = stepsync_sqlite_disable_memory_statistics()
        assert(status == 0, "sqlite3_config(SQLITE_CONFIG_MEMSTATUS) answered \(status)")
        await StepSyncCommand.main()
    }
}
