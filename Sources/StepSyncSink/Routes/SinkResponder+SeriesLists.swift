import Foundation
import Hummingbird
import StepSyncCore

/// The series lists: the stored routes (`GET /routes`) and ECG recordings (`GET /electrocardiograms`), from their
/// parts 0 (the routes are in `SinkResponder+Series.swift`).
extension SinkResponder {
    // MARK: - GET /routes

    /// `GET /routes[?from&to&tz]`: the stored routes whose first point is in the range (dates in `tz` or instants, as
    /// `GET /export` reads them: ``daysOrInstants(_:)``), a workout's or one no workout
    /// names (``RouteList``), in start order. Every route part in the range is paged through: part 0s (a prefilter on
    /// `"part":0`, then the strict reader) give each route; the other parts' ends and point counts are taken from the
    /// same pages, and those past the range (a route's parts start after its first) are looked up by uuid.
    func routes(_ query: Query, client: ClientIdentity) async throws -> Response {
        let span = try daysOrInstants(query)
        let range = query["from"] == nil && query["to"] == nil ? nil : span.start..<span.end
        var summaries: [RouteList.Summary] = []
        var seen: [UUID: (endMs: Int64, points: Double)] = [:]
        try await forEachSample(of: .workoutRoute, startingIn: range, client: client) { sample in
            seen[sample.uuid] = (sample.endMs, sample.value)
            guard let details = sample.details, details.contains(#""part":0,"#),
                  let part = try? RoutePart(details: details), part.index == 0, part.uuid == sample.uuid else { return }
            summaries.append(RouteList.Summary(partZero: part))
        }
        for i in summaries.indices where summaries[i].parts > 1 {
            let owner = summaries[i].uuid
            var absent: [UUID] = []
            for index in 1..<summaries[i].parts {
                let uuid = RoutePart.uuid(workout: owner, index: index)
                if let part = seen[uuid] { summaries[i].add(endMs: part.endMs, points: part.points) } else { absent.append(uuid) }
            }
            var next = 0
            while next < absent.count {
                let batch = Array(absent[next..<min(absent.count, next + 64)])
                for sample in try await storage.samples(batch, type: .workoutRoute, for: client) where batch.contains(sample.uuid) {
                    summaries[i].add(endMs: sample.endMs, points: sample.value)
                }
                next += batch.count
            }
        }
        return json(RouteList.list(summaries))
    }

    // MARK: - GET /electrocardiograms

    /// `GET /electrocardiograms[?from&to]`: the recordings whose start is in `from..<to`, in start order
    /// (``ElectrocardiogramAnswer/list(_:)``), from their parts 0: every ECG part in the range is paged through (a
    /// recording's parts start within its 30 s), and only part 0's header is decoded.
    func electrocardiograms(_ query: Query, client: ClientIdentity) async throws -> Response {
        let range = try startRange(query)
        var summaries: [ElectrocardiogramAnswer.Summary] = []
        try await forEachSample(of: .electrocardiogram, startingIn: range, client: client) { sample in
            guard let details = sample.details,
                  let summary = ElectrocardiogramAnswer.Summary(partZeroDetails: details),
                  summary.recording == sample.uuid else { return }
            summaries.append(summary)
        }
        return json(ElectrocardiogramAnswer.list(summaries))
    }

    // MARK: - Paging

    /// Calls `body` with every stored sample of `type` starting in `range` (all of them when `nil`), page by page
    /// (the configured page limits), in the storage's page order.
    private func forEachSample(of type: SampleType, startingIn range: Range<Int64>?, client: ClientIdentity,
                               _ body: (HealthSample) -> Void) async throws {
        var cursor: String?
        repeat {
            let page = try await storage.page(
                SamplePageQuery(type: type, cursor: cursor, limit: configuration.maxPageLimit,
                                maxBytes: configuration.maxPageBytes, startRange: range),
                for: client)
            for sample in page.samples { body(sample) }
            cursor = page.nextCursor
        } while cursor != nil
    }
}
