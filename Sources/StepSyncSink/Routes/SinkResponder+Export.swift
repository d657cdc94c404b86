import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StepSyncCore

extension SinkResponder {
    /// The routes of export.
    static let exportRoutes: [SinkRoute] = [
        SinkRoute("/export", get: { try await $0.export($1.query, client: $1.client) }),
    ]

    /// Samples read from the storage per page of an export.
    static let exportPageLimit = 5_000

    /// `GET /export?type=T&format=csv|ndjson[&from=…&to=…&tz=Z]`: every sample of the client's type `T` as CSV or
    /// NDJSON, the rows `stepsync export` writes (``ExportEncoder``), streamed a page at a time, so memory stays flat
    /// for any history.
    ///
    /// `type` is a HealthKit identifier or the short name of a type the client holds (`HeartRate`, any case), step
    /// counts when absent (as `GET /steps`); `format` defaults to `csv`; `from`/`to` are dates `YYYY-MM-DD` (local days in `tz`, default UTC; `to`
    /// includes its day) or ISO-8601 instants (`to` exclusive), bounding the samples' starts. Rows come in start,
    /// then uuid, order on both storages, as `stepsync export` writes them. `utcOffsetSeconds` is empty (`null`): the
    /// wire does not carry it, so the sink never has it. The first page is read before the answer
    /// starts, so a bad request or an unavailable storage gets its status; a failure after that cuts the body short
    /// (the connection closes before the final chunk, which every client reports as an error).
    func export(_ query: Query, client: ClientIdentity) async throws -> Response {
        let format: ExportFormat
        if let text = query["format"] {
            guard let named = ExportFormat(name: text) else {
                throw SinkError.badRequest("format \"\(text.prefix(64))\" is neither csv nor ndjson", field: "format")
            }
            format = named
        } else {
            format = .csv
        }
        let range = try daysOrInstants(query)
        let type = if let text = query["type"] { try await exportType(String(text), client: client) } else { SampleType.stepCount }
        let storage = self.storage
        let pageQuery = SamplePageQuery(type: type, limit: Self.exportPageLimit, maxBytes: configuration.maxPageBytes,
                                        startRange: range.start..<range.end, countsStored: false)
        let first = try await storage.page(pageQuery, for: client)
        let filename = "\(type.shortName).\(format.fileExtension)"
        let headers: HTTPFields = [
            .contentType: format.contentType,
            .contentDisposition: "attachment; filename=\"\(filename)\"",
            .cacheControl: "no-store",
        ]
        let body = ResponseBody { writer in
            var out = ExportEncoder.header(format)
            var page = first
            while true {
                // The next page is read while this one is encoded and written (at most two pages in memory): on
                // PostgreSQL the database's work on a page and the sink's encoding overlap (issue 31).
                let following = page.nextCursor.map { cursor in
                    Task {
                        var next = pageQuery
                        next.cursor = cursor
                        return try await storage.page(next, for: client)
                    }
                }
                do {
                    for sample in page.samples { ExportEncoder.appendRow(sample, format: format, to: &out) }
                    if !out.isEmpty { try await writer.write(ByteBuffer(bytes: out)) }
                } catch {
                    following?.cancel()
                    throw error
                }
                out.removeAll(keepingCapacity: true)
                guard let following else { break }
                page = try await withTaskCancellationHandler {
                    try await following.value
                } onCancel: {
                    following.cancel()
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The starts `from`/`to` bound (``ExportRange``): dates `YYYY-MM-DD` (local days in `tz`, default UTC; `to`
    /// includes its day) or ISO-8601 instants (`to` exclusive); every instant when both are absent. 400 naming the
    /// parameter otherwise. `GET /export` and `GET /routes` read their range so.
    func daysOrInstants(_ query: Query) throws -> TimeRange {
        do {
            let tz = query["tz"].map(String.init) ?? "UTC"
            let zone = try DailyStepsRequest.parseTimeZone(tz)
            return try ExportRange.parse(from: query["from"].map(String.init), to: query["to"].map(String.init),
                                         timeZone: zone)
        } catch let error as DailyStepsError {
            throw SinkError.badRequest(error.description, field: error.parameter)
        } catch let error as ExportRangeError {
            throw SinkError.badRequest(error.message, field: error.parameter)
        }
    }

    /// The type `text` names: a HealthKit identifier (`HK…`), else the short name of a type the client holds (any
    /// case), else a name the CLI's `--type` knows (`steps`, `heart-rate`); 400 naming `type` otherwise.
    private func exportType(_ text: String, client: ClientIdentity) async throws -> SampleType {
        if !text.hasPrefix("HK") {
            let wanted = text.lowercased()
            let held = try await storage.typeCounts(for: client).keys
            if let match = held.first(where: { $0.shortName.lowercased() == wanted || $0.rawValue.lowercased() == wanted }) {
                return match
            }
            // The names `stepsync generate --types` and the CLI's --type know (`steps`, `heart-rate`, `workouts`):
            // the README says they work everywhere.
            if let named = GeneratedType(name: text) { return named.sampleType }
            let names = held.map(\.shortName).sorted().prefix(20).joined(separator: ", ")
            throw SinkError.badRequest("""
                type "\(text.prefix(64))" is neither a HealthKit identifier (HKQuantityTypeIdentifierHeartRate) nor \
                the short name of a type you hold (\(names.isEmpty ? "none yet" : names)) nor a name such as steps or heart-rate
                """, field: "type")
        }
        let type = SampleType(text)
        if let problem = SampleValidation.typeProblem(type) {
            throw SinkError.badRequest("type \(problem.detail)", field: "type")
        }
        return type
    }
}
