import Foundation
import GRDB

/// Writes to a store's SQLite file behind `StepStore`'s back, as an older stepsync (one that validated less) would
/// have: the only way to get a sample the store's inserter now refuses into a store, for the engine's tests.
public enum RawStore {
    /// Runs `sql` with `arguments` on the store at `path`.
    public static func execute(_ sql: String, arguments: StatementArguments = [], storePath path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: sql, arguments: arguments) }
        try queue.close()
    }

    /// Sets one column of the stored sample `uuid` to `value` (e.g. a negative step count, a 2 KB source).
    public static func setSample(_ uuid: UUID, column: String, to value: some DatabaseValueConvertible, storePath path: String) throws {
        try execute("UPDATE sample SET \(column) = ? WHERE uuid = ?", arguments: [value, uuid], storePath: path)
    }

    /// Every sample's uuid in the store at `path`, by type identifier.
    public static func uuidsByType(storePath path: String) throws -> [String: Set<UUID>] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var byType: [String: Set<UUID>] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT t.identifier AS type, s.uuid AS uuid FROM sample s JOIN sample_type t ON t.id = s.type_id
                """)
            while let row = try rows.next() {
                byType[row["type"], default: []].insert(row["uuid"])
            }
            return byType
        }
    }
}
