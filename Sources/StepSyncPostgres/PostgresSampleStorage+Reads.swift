import Foundation
import PostgresNIO
import StepSyncCore
import StepSyncStorage

extension PostgresSampleStorage {
    /// A position in a client's samples of one type: after (start, uuid). Opaque to clients: `<startMs>.<UUID>`.
    struct PageCursor: Hashable, Sendable {
        var startMs: Int64
        var uuid: UUID

        init(startMs: Int64, uuid: UUID) {
            self.startMs = startMs
            self.uuid = uuid
        }

        /// Parses a cursor this sink gave, or nil.
        init?(_ text: String) {
            let parts = text.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, let ms = Int64(parts[0]), Instants.contains(ms),
                  let uuid = UUID(uuidString: String(parts[1])) else { return nil }
            self.init(startMs: ms, uuid: uuid)
        }

        var text: String { "\(startMs).\(uuid.uuidString)" }
    }

    /// Up to `limit` samples of `client` and `type` whose start is in `from..<to`, in (start, uuid) order after
    /// `cursor`, and — after the first — at most `maxBytes` bytes of stored JSON (the JSONL sink's line of each
    /// sample); `next` is the cursor of the following page, or nil at the end.
    ///
    /// The rows are read whole within the call's database deadline and decoded afterwards (``rows(of:)``).
    func page(client: Int64, type: SampleType, after cursor: PageCursor?, from: Int64?, to: Int64?,
              limit: Int, maxBytes: Int = .max) async throws -> (samples: [HealthSample], next: PageCursor?) {
        let rows = try await rows(of: Self.pageQuery(client: client, type: type, after: cursor, from: from, to: to,
                                                     limit: limit))
        var samples: [HealthSample] = []
        samples.reserveCapacity(min(limit, rows.count))
        var bytes = 0
        var line: [UInt8] = []
        var more = false
        for row in rows {
            if samples.count == limit {
                more = true
                break
            }
            let sample = try Self.sample(row, type: type)
            if maxBytes != .max {
                line.removeAll(keepingCapacity: true)
                WireEncoder.appendStoredLine(sample, to: &line)
                if !samples.isEmpty && bytes + line.count > maxBytes {
                    more = true
                    break
                }
                bytes += line.count
            }
            samples.append(sample)
        }
        guard more, let last = samples.last else { return (samples, nil) }
        return (samples, PageCursor(startMs: last.startMs, uuid: last.uuid))
    }

    /// The statement of ``page(client:type:after:from:to:limit:maxBytes:)``: one range of the
    /// `samples_client_type_start` index (in start order; samples sharing a start are put in uuid order by a small
    /// sort, since v3's index has no uuid tie-breaker), `limit + 1` rows (the last only says whether there is more).
    static func pageQuery(client: Int64, type: SampleType, after cursor: PageCursor?, from: Int64?, to: Int64?,
                          limit: Int) -> PostgresQuery {
        let lower = PostgresInstant(milliseconds: max(from ?? Instants.min, cursor?.startMs ?? .min))
        let upper = to.map { PostgresInstant(milliseconds: $0) }
        let afterStart = cursor.map { PostgresInstant(milliseconds: $0.startMs) }
        let afterUUID = cursor?.uuid
        let key = SampleTypeKey.of(type)
        return """
            SELECT uuid, start_at, end_at, utc_offset_seconds, value, unit, source_name, source_bundle_id,
                   source_version, device_name, device_model, details::text
            FROM samples
            WHERE client_id = \(client) AND type_key = \(key) AND type = \(type.rawValue) AND start_at >= \(lower)
              AND (\(upper)::timestamptz IS NULL OR start_at < \(upper))
              AND (\(afterStart)::timestamptz IS NULL OR (start_at, uuid) > (\(afterStart), \(afterUUID)))
            ORDER BY start_at, uuid
            LIMIT \(limit + 1)
            """
    }

    /// The samples of `client` and `type` whose uuid is in `uuids` (distinct), in no particular order: one statement,
    /// `uuid = ANY($1)` on the primary key `(client_id, uuid)`.
    func samples(_ uuids: [UUID], type: SampleType, client: Int64) async throws -> [HealthSample] {
        let distinct = Array(Set(uuids))
        guard !distinct.isEmpty else { return [] }
        let rows = try await rows(of: """
            SELECT uuid, start_at, end_at, utc_offset_seconds, value, unit, source_name, source_bundle_id,
                   source_version, device_name, device_model, details::text
            FROM samples
            WHERE client_id = \(client) AND uuid = ANY(\(distinct)) AND type = \(type.rawValue)
            """)
        return try rows.map { try Self.sample($0, type: type) }
    }

    /// The sample of `type` in a row of ``pageQuery(client:type:after:from:to:limit:)``'s columns. A row that does
    /// not decode is a query error naming the column (never *unavailable*: the database answered).
    static func sample(_ row: PostgresRow, type: SampleType) throws -> HealthSample {
        do {
            let columns = try row.decode(
                (UUID, PostgresInstant, PostgresInstant, Int32?, Double, String, String, String, String?, String?,
                 String?, String?).self)
            return HealthSample(
                uuid: columns.0, type: type, startMs: columns.1.milliseconds, endMs: columns.2.milliseconds,
                utcOffsetSeconds: columns.3, value: columns.4, unit: columns.5, sourceName: columns.6,
                sourceBundleId: columns.7, sourceVersion: columns.8, deviceName: columns.9,
                deviceModel: columns.10, details: columns.11)
        } catch let error as PostgresDecodingError {
            throw PostgresStorageError.query("a stored \(type.shortName) row did not decode (column \(error.columnName))")
        }
    }

    /// How many samples of `type` `client` stores.
    func count(client: Int64, type: SampleType) async throws -> Int {
        let logger = self.logger
        return try await withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT count(*) FROM samples
                WHERE client_id = \(client) AND type_key = \(SampleTypeKey.of(type)) AND type = \(type.rawValue)
                """, logger: logger)
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            return count
        }
    }

    /// Rows of step spans read per statement by ``stepSpans(client:overlapping:)``, as many as a page of `/export`:
    /// a few milliseconds of the database's work in a release build, so a decade (≈ 624k samples) is 125
    /// statements, each within its own deadline (the rows' arrival counts against it, and a debug build's NIO
    /// takes ≈ 0.1 ms a row to parse them).
    static let stepSpanChunk = 5_000

    /// Every step-count sample of `client` overlapping `range` (start before its end, end after its start, or a
    /// zero-length sample inside it), in (start, uuid) order: the input of the daily totals.
    ///
    /// A sample overlapping the range may start before it, by at most the longest duration of the client's step
    /// samples: one hour, or the longest sample over an hour, read from the partial index `samples_long_duration`
    /// (migration 2) in the same statement. The rows are then one range of the `(client_id, type_key, start_at)`
    /// index, `[lower − look-back, upper)`, rather than every step sample before `upper`. The look-back is clamped
    /// so that `lower − look-back` stays at or after 0001-01-01 (no sample starts earlier; PostgreSQL would refuse
    /// an out-of-range timestamp). The range is read in statements of ``stepSpanChunk`` rows, each after the last
    /// row of the one before, each within its own database deadline and decoded after it (issue 31: the sink's
    /// decoding never counts against a deadline, and a decade is never one statement's wait).
    func stepSpans(client: Int64, overlapping range: Range<Int64>) async throws -> [StepSpan] {
        var spans: [StepSpan] = []
        var after: PageCursor?
        while true {
            let rows = try await rows(of: Self.stepSpansQuery(client: client, overlapping: range, after: after,
                                                              limit: Self.stepSpanChunk))
            spans.reserveCapacity(spans.count + rows.count)
            do {
                for row in rows {
                    let (start, end, value, device) = try row.decode(
                        (PostgresInstant, PostgresInstant, Double, String?).self)
                    spans.append(StepSpan(startMs: start.milliseconds, endMs: end.milliseconds, value: value,
                                          deviceName: device))
                }
                guard rows.count == Self.stepSpanChunk, let last = rows.last else { return spans }
                let (start, _, _, _, uuid) = try last.decode(
                    (PostgresInstant, PostgresInstant, Double, String?, UUID).self)
                after = PageCursor(startMs: start.milliseconds, uuid: uuid)
            } catch let error as PostgresDecodingError {
                throw PostgresStorageError.query("a stored step row did not decode (column \(error.columnName))")
            }
        }
    }

    /// The statement of ``stepSpans(client:overlapping:)``: up to `limit` rows after `after` (all when nil). The
    /// subquery repeats the partial index's condition word for word, so the planner can use it.
    static func stepSpansQuery(client: Int64, overlapping range: Range<Int64>, after: PageCursor? = nil,
                               limit: Int? = nil) -> PostgresQuery {
        let lower = PostgresInstant(milliseconds: range.lowerBound)
        let upper = PostgresInstant(milliseconds: range.upperBound)
        let first = PostgresInstant(milliseconds: Instants.min)
        let afterStart = after.map { PostgresInstant(milliseconds: $0.startMs) }
        let afterUUID = after?.uuid
        let steps = SampleType.stepCount.rawValue
        let key = SampleTypeKey.of(SampleType.stepCount)
        return """
            SELECT start_at, end_at, value, device_name, uuid FROM samples
            WHERE client_id = \(client) AND type_key = \(key) AND type = \(steps) AND start_at < \(upper)
              AND start_at >= \(lower) - least(
                    greatest(interval '1 hour',
                             (SELECT max(end_at - start_at) FROM samples
                              WHERE client_id = \(client) AND type_key = \(key) AND type = \(steps)
                                AND end_at - start_at > interval '1 hour')),
                    greatest(\(lower) - \(first), interval '0'))
              AND (end_at > \(lower) OR (end_at = start_at AND start_at >= \(lower)))
              AND (\(afterStart)::timestamptz IS NULL OR start_at >= \(afterStart))
              AND (\(afterStart)::timestamptz IS NULL OR (start_at, uuid) > (\(afterStart), \(afterUUID)))
            ORDER BY start_at, uuid
            LIMIT \(limit ?? Int(Int32.max))
            """
    }

    /// How many samples `client` stores, per type.
    func counts(client: Int64) async throws -> [SampleType: Int] {
        let logger = self.logger
        return try await withConnection { connection in
            var counts: [SampleType: Int] = [:]
            let rows = try await connection.query(
                "SELECT type, count(*) FROM samples WHERE client_id = \(client) GROUP BY type", logger: logger)
            for try await (type, count) in rows.decode((String, Int).self) { counts[SampleType(type)] = count }
            return counts
        }
    }

    /// Deletes `client`'s samples of `type` with these uuids (in one transaction); returns (deleted, missing), where
    /// missing counts the distinct uuids it did not hold.
    func delete(_ uuids: [UUID], type: SampleType, client: Int64) async throws -> (deleted: Int, missing: Int) {
        let logger = self.logger
        let distinct = Array(Set(uuids)).sorted { $0.bytesPrecede($1) }
        guard !distinct.isEmpty else { return (0, 0) }
        let deleted = try await transaction { connection in
            let rows = try await connection.query("""
                WITH deleted AS (
                    DELETE FROM samples
                    WHERE client_id = \(client) AND type = \(type.rawValue) AND uuid = ANY(\(distinct))
                    RETURNING 1
                )
                SELECT count(*) FROM deleted
                """, logger: logger)
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            return count
        }
        return (deleted, distinct.count - deleted)
    }

    /// Deletes every sample of `client` (of `types`, when given); returns how many.
    func clear(client: Int64, types: [SampleType]?) async throws -> Int {
        let logger = self.logger
        let names = types?.map(\.rawValue)
        let keys = types?.map { SampleTypeKey.of($0) }
        return try await transaction { connection in
            let rows = try await connection.query("""
                WITH deleted AS (
                    DELETE FROM samples
                    WHERE client_id = \(client)
                      AND (\(names)::text[] IS NULL OR (type_key = ANY(\(keys)) AND type = ANY(\(names))))
                    RETURNING 1
                )
                SELECT count(*) FROM deleted
                """, logger: logger)
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            return count
        }
    }
}
