import PostgresNIO

/// The type limit's probe (``PostgresSampleStorage/checkTypeLimit(_:client:on:)``) as a named prepared statement:
/// how many of `keys` the client holds no sample of, and whether the client exists.
///
/// Prepared once per pooled connection (PostgresNIO keeps track), so the batch's one probe is no longer parsed and
/// planned every time: planning took 0.33 ms of the ≈ 0.45 ms it cost PostgreSQL (`EXPLAIN ANALYZE` on a table of
/// 400k rows), once per batch (`Planning/postgres.md`).
///
/// After five executions PostgreSQL may keep one *generic* plan for every client. `ORDER BY start_at` (the index's
/// next column) keeps that plan on `samples_client_type_start`: without it, a table whose statistics show one client
/// makes the generic plan a sequential scan "until the first row of this client and key", which stops at once for
/// that client and reads the whole table for a new one. With it, a sequential scan would have to sort every match,
/// and both plans (custom and generic, one client or 200) read the index and stop at its first entry (`EXPLAIN` on
/// 400k rows, 2026-11-26).
struct TypeProbeStatement: PostgresPreparedStatement {
    static let name = "stepsync_type_probe_v1"
    static let sql = """
        SELECT (SELECT count(*) FROM unnest($1::bigint[]) AS t(key)
                WHERE (SELECT 1 FROM samples WHERE client_id = $2 AND type_key = t.key
                       ORDER BY start_at LIMIT 1) IS NULL),
               EXISTS (SELECT 1 FROM clients WHERE id = $2)
        """
    typealias Row = (Int, Bool)

    /// The distinct type keys of the batch.
    var keys: [Int64]
    /// The client's id.
    var client: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(keys)
        bindings.append(client)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode((Int, Bool).self)
    }
}
