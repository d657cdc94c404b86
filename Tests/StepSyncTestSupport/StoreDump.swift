import Foundation
import GRDB

/// Everything a sample store holds that an insert or an import touches, as lines of text — schema (indexes and the
/// tables they belong to), types, samples in `seq` order with every column, the hourly rollup, the change sequence
/// and SQLite's integrity check — so two stores written by two paths (the bulk load and the row-at-a-time inserter)
/// compare with one `==`.
public enum StoreDump {
    /// The dump of the store at `path`.
    public static func lines(_ path: String) throws -> [String] {
        let db = try DatabaseQueue(path: path)
        defer { try? db.close() }
        return try db.read { db in
            var out = try String.fetchAll(db, sql: """
                SELECT type || ' ' || name || ' ' || tbl_name || ' ' || IFNULL(sql, '') FROM sqlite_master ORDER BY name
                """)
            out += try String.fetchAll(db, sql: "SELECT id || ' ' || identifier FROM sample_type ORDER BY id")
            out += try String.fetchAll(db, sql: """
                SELECT json_array(seq, hex(uuid), type_id, start_ms, end_ms, utc_offset, value, unit, source_name,
                    source_bundle_id, source_version, device_name, device_model, details) FROM sample ORDER BY seq
                """)
            out += try String.fetchAll(db, sql: "SELECT json_array(type_id, hour, sum, count) FROM sample_hour ORDER BY type_id, hour")
            out += try String.fetchAll(db, sql: "SELECT 'change_seq ' || change_seq FROM store_state")
            out += try String.fetchAll(db, sql: "PRAGMA integrity_check")
            return out
        }
    }
}
