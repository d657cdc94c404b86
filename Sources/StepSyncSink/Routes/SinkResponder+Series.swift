import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StepSyncCore

/// The series endpoints (`Planning/series.md`): a workout's route and the ECG recordings, read back from their parts.
///
/// A route or a recording is stored as parts (``RoutePart``, ``ElectrocardiogramPart``), each one sample whose uuid
/// follows from the workout's or the recording's. So the sink finds them **by uuid**, never by scanning: part 0 with
/// one lookup (``SampleStorage/samples(_:type:for:)``: the JSONL uuid index, PostgreSQL's primary key), which says
/// how many parts there are, then parts `1..<parts` with one more. Parts not there yet (a sync under way) make the
/// answer `complete: false` with their indices in `missingParts`; no part 0 is 404 `not_found`.
extension SinkResponder {
    /// The routes of series.
    static let seriesRoutes: [SinkRoute] = [
        SinkRoute("/workouts/{uuid}/route",
                  get: { try await $0.route(of: try $1.uuid("uuid"), query: $1.query, client: $1.client) }),
        SinkRoute("/electrocardiograms", get: { try await $0.electrocardiograms($1.query, client: $1.client) }),
        SinkRoute("/electrocardiograms/{uuid}", get: { try await $0.electrocardiogram(try $1.uuid("uuid"), client: $1.client) }),
        SinkRoute("/routes", get: { try await $0.routes($1.query, client: $1.client) }),
    ]

    /// The most parts a route or recording is read with (part 0 says how many; a client's details could say a
    /// billion): ``SeriesLimits/maxParts``, 4,096 parts of ≤ 56 KiB (a part 0 saying more is not read).
    static let maxSeriesParts = SeriesLimits.maxParts
    /// Parts looked up at once while an answer streams: 2 × ≤ 56 KiB of details, decoded, then written and let go.
    static let seriesBatchParts = 2
    /// The bytes an answer's buffer is handed to the connection at.
    static let seriesChunkBytes = 64 << 10

    // MARK: - GET /workouts/{uuid}/route

    /// `GET /workouts/{uuid}/route[?format=geojson|gpx]`: the route as a GeoJSON Feature (``RouteGeoJSONStream``) or
    /// GPX 1.1 (``RouteGPX``), **streamed part by part**: part 0 is read before the answer starts (so a missing route
    /// is 404), then parts `1..<parts` are looked up ``seriesBatchParts`` at a time, written and let go, the task
    /// yielding between parts so that one heavy read never holds other clients back. At most
    /// ``SeriesLimits/maxAnswerPoints`` points are answered (then `truncated`; parts past them are not read); a part
    /// that is absent or unreadable (stored before the parts were checked) is listed in `missingParts`.
    func route(of workout: UUID, query: Query, client: ClientIdentity) async throws -> Response {
        let format = query["format"].map(String.init) ?? "geojson"
        guard format == "geojson" || format == "gpx" else {
            throw SinkError.badRequest("format \"\(format.prefix(64))\" is not geojson or gpx", field: "format")
        }
        let firstUUID = RoutePart.uuid(workout: workout, index: 0)
        guard let sample = try await storage.samples([firstUUID], type: .workoutRoute, for: client).first else {
            throw SinkError.absent("no route of workout \(workout.uuidString) is stored here (its part 0 is not)")
        }
        guard let first = try? RoutePart(details: sample.details ?? ""), first.workout == workout, first.index == 0 else {
            throw SinkError.absent("""
                the route of workout \(workout.uuidString) cannot be read: its part 0 is not a valid route part of it \
                (at most \(Self.maxSeriesParts) parts)
                """)
        }
        let gpx = format == "gpx"
        let contentType = gpx ? RouteGPX.contentType : RouteGeoJSON.contentType
        let storage = self.storage
        let body = ResponseBody { writer in
            var out: [UInt8] = gpx
                ? RouteGPX.head(workout: workout, file: first.file, firstTimeMs: first.points.first?.timeMs) : []
            var stream = RouteGeoJSONStream(workout: workout, file: first.file)
            var sent = 0
            var file = first.file
            var truncated = false
            func flush(_ out: inout [UInt8]) async throws {
                try await writer.write(ByteBuffer(bytes: out))
                out.removeAll(keepingCapacity: true)
            }
            let missing = try await Self.forEachPart(first, storage: storage, client: client) { part in
                guard sent < SeriesLimits.maxAnswerPoints else { truncated = true; return false }
                let take = min(part.points.count, SeriesLimits.maxAnswerPoints - sent)
                truncated = take < part.points.count
                if gpx {
                    // One `<trkseg>` a route file: a workout's route may be several (Planning/series.md).
                    if sent > 0, part.file != file { out.append(contentsOf: RouteGPX.segmentBreak) }
                    RouteGPX.appendPoints(part.points.prefix(take), to: &out)
                } else {
                    stream.append(part.points.prefix(take), file: part.file, to: &out)
                }
                file = part.file
                sent += take
                if out.count >= Self.seriesChunkBytes { try await flush(&out) }
                return !truncated
            }
            if gpx {
                out.append(contentsOf: RouteGPX.tail)
            } else {
                stream.finish(missingParts: missing, truncated: truncated)
                while stream.nextChunk(into: &out, maxBytes: Self.seriesChunkBytes) {
                    try await flush(&out)
                    await Task.yield()
                }
            }
            if !out.isEmpty { try await flush(&out) }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: contentType], body: body)
    }

    /// Visits the parts of `first`'s series in order — `first`, then parts `1..<first.count` looked up
    /// ``seriesBatchParts`` at a time by their uuids (``SeriesPart/uuid(owner:index:)``) — while `visit` returns true;
    /// returns the indices (among those looked at) of the parts absent, unreadable (``SeriesPart/init(details:)``), or
    /// of another owner or index: the `missingParts`.
    private static func forEachPart<Part: SeriesPart>(
        _ first: Part, storage: any SampleStorage, client: ClientIdentity, visit: (Part) async throws -> Bool
    ) async throws -> [Int] {
        var missing: [Int] = []
        guard try await visit(first) else { return missing }
        var next = 1
        while next < first.count {
            let batch = next..<min(first.count, next + Self.seriesBatchParts)
            let uuids = batch.map { Part.uuid(owner: first.owner, index: $0) }
            var found: [Int: Part] = [:]
            for sample in try await storage.samples(uuids, type: Part.sampleType, for: client) {
                guard let position = uuids.firstIndex(of: sample.uuid), let part = try? Part(details: sample.details ?? ""),
                      part.owner == first.owner, part.index == batch.lowerBound + position else { continue }
                found[part.index] = part
            }
            for index in batch {
                guard let part = found.removeValue(forKey: index) else {
                    missing.append(index)
                    continue
                }
                guard try await visit(part) else { return missing }
                // A part is ≈ 10 ms of decoding and writing in a release build: let other requests run between them.
                await Task.yield()
            }
            next = batch.upperBound
        }
        return missing
    }

    // MARK: - GET /electrocardiograms/{uuid}

    /// `GET /electrocardiograms/{uuid}`: one recording's summary with its voltages
    /// (``ElectrocardiogramAnswer/recording(_:truncated:)``), streamed part by part as a route is
    /// (``route(of:query:client:)``), at most ``SeriesLimits/maxAnswerVoltages`` voltages.
    func electrocardiogram(_ recording: UUID, client: ClientIdentity) async throws -> Response {
        guard let sample = try await storage.samples([recording], type: .electrocardiogram, for: client).first else {
            throw SinkError.absent("no ECG recording \(recording.uuidString) is stored here")
        }
        guard let first = try? ElectrocardiogramPart(details: sample.details ?? ""), first.recording == recording,
              first.index == 0 else {
            throw SinkError.absent("""
                \(recording.uuidString) is not an ECG recording here: the sample is not a valid part 0 of one with at \
                most \(Self.maxSeriesParts) parts
                """)
        }
        let storage = self.storage
        let body = ResponseBody { writer in
            var out = ElectrocardiogramAnswer.recordingHead(ElectrocardiogramAnswer.Summary(first))
            var sent = 0
            var truncated = false
            let missing = try await Self.forEachPart(first, storage: storage, client: client) { part in
                guard sent < SeriesLimits.maxAnswerVoltages else { truncated = true; return false }
                let take = min(part.microvolts.count, SeriesLimits.maxAnswerVoltages - sent)
                truncated = take < part.microvolts.count
                ElectrocardiogramAnswer.appendVoltages(part.microvolts.prefix(take), after: sent, to: &out)
                sent += take
                if out.count >= Self.seriesChunkBytes {
                    try await writer.write(ByteBuffer(bytes: out))
                    out.removeAll(keepingCapacity: true)
                }
                return !truncated
            }
            out.append(contentsOf: ElectrocardiogramAnswer.recordingTail(missingParts: missing, truncated: truncated))
            try await writer.write(ByteBuffer(bytes: out))
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
    }
}
