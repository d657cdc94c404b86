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

    /// The header naming the automation that pushed.
    static let automationName = HTTPField.Name("automation-name")!
    /// The header holding the automation's id.
    static let automationId = HTTPField.Name("automation-id")!
    /// The header holding the run's session id.
    static let sessionId = HTTPField.Name("session-id")!

    /// Reads the body (at most ``SinkConfiguration/maxHAEBytes``) with ``HAEPayloadReader``, bucketed by the
    /// `automation-aggregation` header, and stores its samples with ``SampleStorage/insertReplacing(_:for:)``: the
    /// same payload again inserts nothing, a grown bucket replaces the stored one. 400 naming the field for a body
    /// that is not the app's shape (nothing stored); bad points are skipped and counted in the answer
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
        let reading: HAEReading
        do {
            reading = try HAEPayloadReader(aggregation: aggregation).read(Data(buffer: body, byteTransferStrategy: .noCopy))
        } catch {
            throw SinkError.badRequest(error.description, field: error.field)
        }
        let outcome = try await storage.insertReplacing(reading.samples, for: client)
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
