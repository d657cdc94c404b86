import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StepSyncCore

/// `POST /ingest/health-auto-export`: the REST automation of the iOS app Health Auto Export, pushed by the phone.
extension SinkResponder {
    /// The route of Health Auto Export's pushes.
    static let healthAutoExportRoutes: [SinkRoute] = [
        SinkRoute("/ingest/health-auto-export", post: { try await $0.ingestHealthAutoExport($1.request, client: $1.client) }),
    ]

    /// Reads the next batch of `body` from `cursor`: its samples, and the cursor and reading after it.
    private static func readBatch(of body: ByteBuffer, map: HAEBodyMap, reader: HAEPayloadReader,
                                  cursor: HAEBodyCursor, reading: HAEReading)
        -> (batch: [HealthSample], cursor: HAEBodyCursor, reading: HAEReading)
    {
        var (cursor, reading) = (cursor, reading)
        body.withUnsafeReadableBytes {
            reader.read($0, map: map, cursor: &cursor, into: &reading, upTo: HAEPayloadReader.batchSamples)
        }
        return (reading.handOff(), cursor, reading)
    }

    /// The header naming the automation that pushed.
    static let automationName = HTTPField.Name("automation-name")!
    /// The header holding the automation's id.
    static let automationId = HTTPField.Name("automation-id")!
    /// The header holding the run's session id.
    static let sessionId = HTTPField.Name("session-id")!

    /// Reads the body (at most ``SinkConfiguration/maxHAEBytes``) with ``HAEPayloadReader``, bucketed by the
    /// `automation-aggregation` header: first all of it is checked (``HAEBodyMap``), then its samples are read and
    /// stored ``HAEPayloadReader/batchSamples`` at a time with ``SampleStorage/insertReplacing(_:for:)``: the same payload again
    /// inserts nothing, a grown bucket replaces the stored one. 400 naming the field for a body that is not the
    /// app's shape (nothing stored); bad points are skipped and counted in the answer
    /// (``HAEIngestAnswer``). The `automation-name`, `automation-id` and `session-id` headers are echoed in the answer's
    /// `automation` (``HAEAutomation``); ``RequestLogMiddleware`` puts them in the request's log line.
    func ingestHealthAutoExport(_ request: Request, client: ClientIdentity) async throws -> Response {
        let header = HTTPField.Name("automation-aggregation")!
        guard let aggregation = HAEAggregation(header: request.headers[header]) else {
            throw SinkError.badRequest("""
                automation-aggregation "\(request.headers[header]?.prefix(64) ?? "")" is not one of seconds, minutes, \
                hours, days, weeks, months, years
                """, field: "automation-aggregation")
        }
        var reservation = 0
        defer { budget.release(reservation) }
        let body = try await jsonBody(request, reservation: &reservation, limit: configuration.maxHAEBytes)
        let reader = HAEPayloadReader(aggregation: aggregation)
        let map: HAEBodyMap
        do {
            map = try body.withUnsafeReadableBytes { bytes in Result { () throws(HAEPayloadError) in
                try HAEBodyMap(bytes, reader: reader)
            } }.get()
        } catch {
            throw SinkError.badRequest(error.description, field: error.field)
        }
        // Stored a batch at a time, a body of more types than the storage may hold would be refused at the batch
        // that crosses the limit, the batches before it stored: refused whole here instead.
        if map.types.count > configuration.maxTypes {
            throw SinkError.badRequest("""
                the body holds \(map.types.count) sample types, more than this sink's limit of \(configuration.maxTypes) \
                (--max-types); nothing of it was stored
                """, field: "data.metrics")
        }
        // Each batch is stored while the next is read (on the other core, when there is one): a child task reads,
        // the storage writes, and at most two batches are held.
        var (batch, cursor, reading) = Self.readBatch(of: body, map: map, reader: reader, cursor: HAEBodyCursor(),
                                                      reading: HAEReading(map))
        var outcome = ReplaceOutcome()
        while !cursor.isAtEnd(of: map) {
            async let following = Self.readBatch(of: body, map: map, reader: reader, cursor: cursor, reading: reading)
            if !batch.isEmpty { outcome.add(try await storage.insertReplacing(batch, for: client)) }
            (batch, cursor, reading) = await following
        }
        if !batch.isEmpty { outcome.add(try await storage.insertReplacing(batch, for: client)) }
        activity.recordIngest(inserted: outcome.inserted + outcome.replaced, duplicates: outcome.duplicates,
                              client: client)
        metrics.recordIngest(types: [:], inserted: outcome.inserted, replaced: outcome.replaced,
                             duplicates: outcome.duplicates)
        metrics.recordHealthAutoExport(skipped: reading.skipped.values.reduce(0, +))
        let automation = HAEAutomation(name: request.headers[Self.automationName],
                                       id: request.headers[Self.automationId],
                                       sessionId: request.headers[Self.sessionId])
        return json(HAEIngestAnswer(reading: reading, inserted: outcome.inserted, replaced: outcome.replaced,
                                    duplicates: outcome.duplicates, automation: automation).encoded())
    }
}
