import Foundation
import Hummingbird
import StepSyncCore

/// Daily figures: `GET /steps/daily` (the daily-totals rule) and the dashboard's panel data, `GET /samples/daily`,
/// `GET /sleep/nights`, `GET /workouts` (`Planning/dashboard.md`).
///
/// Each panel reads ``SampleStorage/page(_:for:)`` page by page with the request's UTC span as the start range (so
/// it works on every storage), feeding a pure accumulator of the core (``DailyBand``, ``SleepNights``,
/// ``WorkoutSummary``): memory is bounded by the range's days, which are at most ``DailyStepsRequest/maxDays``. The
/// range follows `GET /steps/daily`: `from` and `to` (`YYYY-MM-DD`) together, `tz` (default UTC); without `from` and
/// `to`, every day from the first stored sample's to the last's (``PanelRange``), found by one extra pass over the
/// type.
extension SinkResponder {
    /// The routes of daily figures.
    static let dailyRoutes: [SinkRoute] = [
        SinkRoute("/steps/daily", get: { try await $0.daily($1.query, client: $1.client) }),
        SinkRoute("/samples/daily", get: { try await $0.samplesDaily($1) }),
        SinkRoute("/sleep/nights", get: { try await $0.sleepNights($1.query, client: $1.client) }),
        SinkRoute("/workouts", get: { try await $0.workouts($1.query, client: $1.client) }),
    ]

    /// `GET /steps/daily?from=YYYY-MM-DD&to=YYYY-MM-DD&tz=IANA&priority=A,B`: the step total of every local day
    /// `from`…`to`, by the daily-totals rule (``DailyStepTotals``: a walk the iPhone and the Watch both recorded counts
    /// once), the same answer as `stepsync stats --daily --json`. `tz` defaults to UTC and `priority` to Apple Watch,
    /// then iPhone; without `from` and `to`, the days from the first to the last stored step sample (at most
    /// ``DailyStepsRequest/maxDays``, ending on the last, within 0001-01-01…9999-12-31), which the answer's `from` and
    /// `to` state. 400 names the parameter at fault, only ever one the request sent.
    private func daily(_ query: Query, client: ClientIdentity) async throws -> Response {
        let tz = query["tz"].map(String.init) ?? "UTC"
        let priority = query["priority"].map(String.init)
        do {
            let request: DailyStepsRequest
            let spans: [StepSpan]
            switch (query["from"], query["to"]) {
            case let (from?, to?):
                request = try DailyStepsRequest.parse(from: String(from), to: String(to), tz: tz, priority: priority)
                let span = DailyStepTotals(request: request).span
                spans = try await storage.stepSpans(overlapping: span.start..<span.end, for: client)
            case (nil, nil):
                let zone = try DailyStepsRequest.parseTimeZone(tz)
                spans = try await storage.stepSpans(overlapping: Instants.min..<Instants.max, for: client)
                guard let firstStart = spans.map(\.startMs).min(), let lastStart = spans.map(\.startMs).max() else {
                    let ranking = try priority.map { try DevicePriority.parse($0, parameter: "priority") } ?? .default
                    return json(DailyStepsResult(timeZoneName: tz, days: [], unmatched: ranking.names).json)
                }
                // The stored days, clamped to the dates a request can name (a sample at 9999-12-31T23:00Z is on
                // 10000-01-01 in UTC+14) and to the last maxDays: the answer's from/to say which were chosen.
                let last = min(CivilDate.local(ofMs: lastStart, in: zone), PanelRange.lastDate)
                let first = max(CivilDate.local(ofMs: firstStart, in: zone), PanelRange.firstDate,
                                last.advanced(by: -(DailyStepsRequest.maxDays - 1)))
                let ranking = try priority.map { try DevicePriority.parse($0, parameter: "priority") } ?? .default
                request = try DailyStepsRequest(from: min(first, last), to: last, timeZoneName: tz, priority: ranking)
            case (nil, _?), (_?, nil):
                throw SinkError.badRequest("from and to go together (YYYY-MM-DD), or neither for every stored day",
                                           field: query["from"] == nil ? "from" : "to")
            }
            let result = try DailyStepTotals.compute(spans, request: request)
            return json(result.json)
        } catch let error as DailyStepsError {
            throw SinkError.badRequest(error.description, field: error.parameter)
        }
    }

    /// `GET /samples/daily?type=T&from=&to=&tz=`: per local day the count, min, average, max and sum of a quantity
    /// type's values (``DailyBand``).
    private func samplesDaily(_ call: SinkCall) async throws -> Response {
        let (query, client) = (call.query, call.client)
        let type = try requiredType(query)
        guard type.kind == .discrete || type.kind == .cumulative else {
            throw SinkError.badRequest("type \(type.rawValue.prefix(64)) is a \(type.kind.rawValue) type; "
                + "\(call.template) summarises quantity types (discrete or cumulative)", field: "type")
        }
        let request = try await panelRequest(query, type: type, client: client) { CivilDate.local(ofMs: $0, in: $1) }
        guard let request else {
            return json(DailyBand.emptyJSON(type: type, timeZoneName: query["tz"].map(String.init) ?? "UTC"))
        }
        var band = DailyBand(type: type, request: request)
        try await eachPage(of: type, in: band.startRange, client: client) { band.add($0) }
        return json(band.json)
    }

    /// `GET /sleep/nights?from=&to=&tz=`: per night (noon to noon, named by its evening) the seconds of each sleep
    /// stage (``SleepNights``).
    private func sleepNights(_ query: Query, client: ClientIdentity) async throws -> Response {
        let request = try await panelRequest(query, type: .sleepAnalysis, client: client) {
            SleepNights.evening(ofMs: $0, in: $1)
        }
        guard let request else { return json(SleepNights.emptyJSON(timeZoneName: query["tz"].map(String.init) ?? "UTC")) }
        var nights = SleepNights(request: request)
        try await eachPage(of: .sleepAnalysis, in: nights.startRange, client: client) { nights.add($0) }
        return json(nights.json)
    }

    /// `GET /workouts?from=&to=&tz=`: the workouts that start on the local days `from…to`, in start order
    /// (``WorkoutSummary``).
    private func workouts(_ query: Query, client: ClientIdentity) async throws -> Response {
        let tz = query["tz"].map(String.init) ?? "UTC"
        let request = try await panelRequest(query, type: .workout, client: client) { CivilDate.local(ofMs: $0, in: $1) }
        guard let request else { return json(WorkoutSummary.listJSON([], request: nil, timeZoneName: tz)) }
        let span = request.days.span
        var list: [WorkoutSummary] = []
        try await eachPage(of: .workout, in: span.start..<span.end, client: client) { samples in
            list += samples.map(WorkoutSummary.init)
        }
        return json(WorkoutSummary.listJSON(list, request: request, timeZoneName: tz))
    }

    // MARK: - Range and reading

    /// The days a panel request answers; `nil` when it names no dates and `type` has no samples. `date` gives the
    /// date a stored sample's start belongs to (a day, or a night's evening).
    private func panelRequest(_ query: Query, type: SampleType, client: ClientIdentity,
                              date: (Int64, TimeZone) -> CivilDate) async throws -> DailyStepsRequest? {
        let tz = query["tz"].map(String.init) ?? "UTC"
        do {
            switch (query["from"], query["to"]) {
            case let (from?, to?):
                return try DailyStepsRequest.parse(from: String(from), to: String(to), tz: tz, priority: nil)
            case (nil, nil):
                let zone = try DailyStepsRequest.parseTimeZone(tz)
                var bounds: ClosedRange<Int64>?
                try await eachPage(of: type, in: nil, client: client) { samples in
                    for sample in samples {
                        bounds = min(bounds?.lowerBound ?? sample.startMs, sample.startMs)...max(bounds?.upperBound ?? sample.startMs, sample.startMs)
                    }
                }
                guard let bounds else { return nil }
                return try PanelRange.stored(first: date(bounds.lowerBound, zone), last: date(bounds.upperBound, zone),
                                             timeZoneName: tz)
            case (nil, _?), (_?, nil):
                throw SinkError.badRequest("from and to go together (YYYY-MM-DD), or neither for every stored day",
                                           field: query["from"] == nil ? "from" : "to")
            }
        } catch let error as DailyStepsError {
            throw SinkError.badRequest(error.description, field: error.parameter)
        }
    }

    /// Reads every page of `type`'s samples starting in `range` (all when `nil`), handing each to `body`.
    private func eachPage(of type: SampleType, in range: Range<Int64>?, client: ClientIdentity,
                          _ body: ([HealthSample]) -> Void) async throws {
        var cursor: String?
        repeat {
            let page = try await storage.page(
                SamplePageQuery(type: type, cursor: cursor, limit: configuration.maxPageLimit,
                                maxBytes: configuration.maxPageBytes, startRange: range, countsStored: false),
                for: client)
            body(page.samples)
            cursor = page.nextCursor
        } while cursor != nil
    }
}
