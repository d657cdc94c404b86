import Foundation
import PostgresNIO
import StepSyncCore
import StepSyncStorage

extension PostgresSampleStorage {
    /// A position in a client's samples of one type: the storages' one cursor, ``StartCursor`` (`<startMs>.<UUID>`).
    typealias PageCursor = StartCursor

    /// Up to `limit` samples of `client` and `type` whose start is in `from..<to`, in (start, uuid) order after
    /// `cursor`, and — after the first — at most `maxBytes` bytes of stored JSON (the JSONL sink's line of each
    /// sample); `next` is the cursor of the following page, or nil at the end.
    ///
    /// The page is read whole within the call's database deadline and decoded afterwards (``rows(of:)``).
    func page(client: Int64, type: SampleType, after cursor: PageCursor?, from: Int64?, to: Int64?,
              limit: Int, maxBytes: Int = .max) async throws -> (samples: [HealthSample], next: PageCursor?) {
        let rows = try await rows(of: Self.pageQuery(client: client, type: type, after: cursor, from: from, to: to,
                                                     limit: limit))
        let packed: ByteBuffer
        do {
            packed = try rows.first?.decode(ByteBuffer?.self) ?? ByteBuffer()
        } catch let error as PostgresDecodingError {
            throw PostgresStorageError.query("a page of \(type.shortName) did not decode (column \(error.columnName))")
        }
        var samples: [HealthSample] = []
        samples.reserveCapacity(min(limit, 5_000))
        // The stored lines' bytes are summed exactly (as the JSONL sink's page does) only once an upper bound of the
        // sum could pass `maxBytes`: below it the exact sum is below too, and the page ends at the same row. A page
        // of 5,000 step samples is ≈ 2 MB of lines against 8 MiB, so `/export` never encodes a stored line.
        var bound = 0
        var exact: Int?
        var line: [UInt8] = []
        var more = false
        var decoder = SampleRowDecoder(type: type)
        var reader = packed
        while reader.readableBytes > 0 {
            if samples.count == limit {
                more = true
                break
            }
            let sample = try decoder.sample(packed: &reader)
            if maxBytes != .max {
                let upper = Self.storedLineBound(sample)
                if exact == nil, bound + upper <= maxBytes {
                    bound += upper
                } else {
                    if exact == nil {
                        var sum = 0
                        for earlier in samples { sum += Self.storedLineLength(earlier, buffer: &line) }
                        exact = sum
                    }
                    let length = Self.storedLineLength(sample, buffer: &line)
                    if !samples.isEmpty && exact! + length > maxBytes {
                        more = true
                        break
                    }
                    exact! += length
                }
            }
            samples.append(sample)
        }
        guard more, let last = samples.last else { return (samples, nil) }
        return (samples, PageCursor(startMs: last.startMs, uuid: last.uuid))
    }

    /// The statement of ``page(client:type:after:from:to:limit:maxBytes:)``: one range of the
    /// `samples_client_type_start` index (in start order; samples sharing a start are put in uuid order by a small
    /// sort, since v3's index has no uuid tie-breaker), `limit + 1` samples (the last only says whether there is
    /// more), answered as **one row**: the samples packed in (start, uuid) order in one `bytea` (NULL when none), as
    /// ``SampleRowDecoder/sample(packed:)`` reads them — PostgresNIO then parses one row a page, not 5,001 (issue 31).
    static func pageQuery(client: Int64, type: SampleType, after cursor: PageCursor?, from: Int64?, to: Int64?,
                          limit: Int) -> PostgresQuery {
        let lower = PostgresInstant(milliseconds: max(from ?? Instants.min, cursor?.startMs ?? .min))
        let upper = to.map { PostgresInstant(milliseconds: $0) }
        let afterStart = cursor.map { PostgresInstant(milliseconds: $0.startMs) }
        let afterUUID = cursor?.uuid
        let key = SampleTypeKey.of(type)
        return """
            SELECT string_agg(uuid_send(uuid) || timestamptz_send(start_at) || timestamptz_send(end_at)
                              || float8send(value)
                              || coalesce('\\x01'::bytea || int4send(utc_offset_seconds), '\\x0000000000'::bytea)
                              || int4send(length(t.unit)) || t.unit || int4send(length(t.name)) || t.name
                              || int4send(length(t.bundle)) || t.bundle
                              || coalesce(int4send(length(t.version)) || t.version, '\\xffffffff'::bytea)
                              || coalesce(int4send(length(t.device)) || t.device, '\\xffffffff'::bytea)
                              || coalesce(int4send(length(t.model)) || t.model, '\\xffffffff'::bytea)
                              || coalesce(int4send(length(t.details)) || t.details, '\\xffffffff'::bytea),
                              ''::bytea ORDER BY start_at, uuid)
            FROM (
                SELECT uuid, start_at, end_at, utc_offset_seconds, value, unit, source_name, source_bundle_id,
                       source_version, device_name, device_model, details
                FROM samples
                WHERE client_id = \(client) AND type_key = \(key) AND type = \(type.rawValue) AND start_at >= \(lower)
                  AND (\(upper)::timestamptz IS NULL OR start_at < \(upper))
                  AND (\(afterStart)::timestamptz IS NULL OR (start_at, uuid) > (\(afterStart), \(afterUUID)))
                ORDER BY start_at, uuid
                LIMIT \(limit + 1)
            ) AS page,
            LATERAL (SELECT textsend(unit) AS unit, textsend(source_name) AS name, textsend(source_bundle_id) AS bundle,
                            textsend(source_version) AS version, textsend(device_name) AS device,
                            textsend(device_model) AS model, textsend(details::text) AS details) AS t
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
        var decoder = SampleRowDecoder(type: type)
        return try rows.map { try decoder.sample($0) }
    }

    /// The sample of `type` in a row of ``pageQuery(client:type:after:from:to:limit:)``'s columns (``SampleRowDecoder``).
    /// A row that does not decode is a query error naming the column (never *unavailable*: the database answered).
    static func sample(_ row: PostgresRow, type: SampleType) throws -> HealthSample {
        var decoder = SampleRowDecoder(type: type)
        return try decoder.sample(row)
    }

    /// An upper bound of the length of `sample`'s stored line (``WireEncoder/appendStoredLine(_:to:)``), found
    /// without writing it: 512 bytes for the keys, punctuation, uuid, instants and number (they take under 400), six
    /// for every byte of text (its worst JSON escape, `\u00XX`), and the `details` as they are (written verbatim).
    static func storedLineBound(_ sample: HealthSample) -> Int {
        let text = sample.type.rawValue.utf8.count + sample.unit.utf8.count + sample.sourceName.utf8.count
            + sample.sourceBundleId.utf8.count + (sample.sourceVersion?.utf8.count ?? 0)
            + (sample.deviceName?.utf8.count ?? 0) + (sample.deviceModel?.utf8.count ?? 0)
        return 512 + 6 * text + (sample.details?.utf8.count ?? 0)
    }

    /// The length of `sample`'s stored line, written into `buffer`.
    static func storedLineLength(_ sample: HealthSample, buffer: inout [UInt8]) -> Int {
        buffer.removeAll(keepingCapacity: true)
        WireEncoder.appendStoredLine(sample, to: &buffer)
        return buffer.count
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

    /// Rows of step spans read per statement by ``stepSpans(client:overlapping:chunk:)``. One statement answers one
    /// row: the chunk's spans packed in one `bytea` (``StepSpanChunk``), so PostgresNIO parses one row, not 100,000,
    /// and the sink reads integers. A decade (≈ 624k samples) is 7 statements of
    /// ≈ 0.1–0.3 s of the database's work each on this 2-core machine, each within its own deadline.
    static let stepSpanChunk = 100_000

    /// Every step-count sample of `client` overlapping `range` (start before its end, end after its start, or a
    /// zero-length sample inside it), in start order (samples sharing a start in any order: the daily totals do not
    /// depend on it): the input of the daily totals.
    ///
    /// A sample overlapping the range may start before it, by at most the longest duration of the client's step
    /// samples: one hour, or the longest sample over an hour, read from the partial index `samples_long_duration`
    /// (migration 2) in the same statement. The rows are then one range of the paging index, `[lower − look-back,
    /// upper)`, rather than every step sample before `upper`: an index-only scan once autovacuum has marked the pages
    /// visible, since the index includes the columns read (migration 5; a heap fetch a row before). So the statement
    /// selects by the type's key alone, not by its name (not in the index): no stored row of another type has the
    /// step count's key (the sink refuses such a name, ``SampleTypeKey/refusal(name:key:)``, and migration 5 checked
    /// the rows before it). The look-back is clamped
    /// so that `lower − look-back` stays at or after 0001-01-01 (no sample starts earlier; PostgreSQL would refuse
    /// an out-of-range timestamp).
    ///
    /// The range is read in statements of `chunk` rows in the index's start order (no sort in the database), each
    /// within its own database deadline and decoded after it (issue 31: the sink's decoding never counts against a
    /// deadline, and a decade is never one statement's wait). The next statement starts at the last start read,
    /// leaving out the uuids already read there — found by a quick pass over the packed bytes
    /// (``StepSpanChunk/scan(_:)``), so that the next statement runs in the database while this chunk is decoded
    /// (at most two chunks in memory, one statement at a time). Each chunk's spans are put in start order by the
    /// sink (they come nearly so: a linear pass).
    func stepSpans(client: Int64, overlapping range: Range<Int64>,
                   chunk: Int = stepSpanChunk) async throws -> [StepSpan] {
        var spans: [StepSpan] = []
        var after: (startMs: Int64, uuids: [UUID])?
        var packed = try await packedStepSpans(client: client, overlapping: range, after: nil, limit: chunk)
        while let current = packed {
            let read = try StepSpanChunk.scan(current)
            var more = false
            if read.count == chunk, let last = read.lastStartMs {
                // Rows at the last start may continue in the next statement: it leaves out those read (all of them,
                // when a whole chunk shared that start).
                if let previous = after, previous.startMs == last {
                    after = (last, previous.uuids + read.uuidsAtLastStart)
                } else {
                    after = (last, read.uuidsAtLastStart)
                }
                more = true
            }
            let next = after
            async let following = more
                ? packedStepSpans(client: client, overlapping: range, after: next, limit: chunk) : nil
            let first = spans.count
            try StepSpanChunk.decode(current, into: &spans)
            spans[first...].sort { $0.startMs < $1.startMs }
            packed = try await following
        }
        return spans
    }

    /// One statement of ``stepSpans(client:overlapping:chunk:)``: its packed spans, or nil when it read none.
    private func packedStepSpans(client: Int64, overlapping range: Range<Int64>,
                                 after: (startMs: Int64, uuids: [UUID])?, limit: Int) async throws -> ByteBuffer? {
        let rows = try await rows(of: Self.stepSpansQuery(client: client, overlapping: range, after: after,
                                                          limit: limit))
        guard let row = rows.first else { return nil }
        do {
            return try row.decode(ByteBuffer?.self)
        } catch let error as PostgresDecodingError {
            throw PostgresStorageError.query("a stored step row did not decode (column \(error.columnName))")
        }
    }

    /// The statement of ``stepSpans(client:overlapping:chunk:)``: one row holding up to `limit` spans (all when nil)
    /// starting at or after `after`'s start, but for its uuids there, the first `limit` in the index's start order,
    /// packed as ``StepSpanChunk`` reads them (NULL when there are none). The subquery repeats the partial index's
    /// condition word for word, so the planner can use it.
    static func stepSpansQuery(client: Int64, overlapping range: Range<Int64>,
                               after: (startMs: Int64, uuids: [UUID])? = nil, limit: Int? = nil) -> PostgresQuery {
        let lower = PostgresInstant(milliseconds: range.lowerBound)
        let upper = PostgresInstant(milliseconds: range.upperBound)
        let first = PostgresInstant(milliseconds: Instants.min)
        let afterStart = after.map { PostgresInstant(milliseconds: $0.startMs) }
        let readUUIDs = after?.uuids ?? []
        let steps = SampleType.stepCount.rawValue
        let key = SampleTypeKey.of(SampleType.stepCount)
        return """
            SELECT string_agg(timestamptz_send(start_at) || timestamptz_send(end_at) || float8send(value)
                              || uuid_send(uuid)
                              || coalesce(int4send(octet_length(device_name)) || textsend(device_name), int4send(-1)),
                              ''::bytea)
            FROM (
                SELECT start_at, end_at, value, device_name, uuid FROM samples
                WHERE client_id = \(client) AND type_key = \(key) AND start_at < \(upper)
                  AND start_at >= \(lower) - least(
                        greatest(interval '1 hour',
                                 (SELECT max(end_at - start_at) FROM samples
                                  WHERE client_id = \(client) AND type_key = \(key) AND type = \(steps)
                                    AND end_at - start_at > interval '1 hour')),
                        greatest(\(lower) - \(first), interval '0'))
                  AND (end_at > \(lower) OR (end_at = start_at AND start_at >= \(lower)))
                  AND (\(afterStart)::timestamptz IS NULL OR start_at >= \(afterStart))
                  AND (\(afterStart)::timestamptz IS NULL OR start_at > \(afterStart) OR uuid <> ALL(\(readUUIDs)))
                ORDER BY start_at
                LIMIT \(limit ?? Int(Int32.max))
            ) AS chunk
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
