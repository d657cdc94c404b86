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
    /// The paths with a parameter, as the OpenAPI document names them, and the methods each allows.
    static let parameterisedRoutes: [String: [HTTPRequest.Method]] = [
        "/workouts/{uuid}/route": [.get],
        "/electrocardiograms/{uuid}": [.get],
    ]

    /// The most parts a route or recording is read with (part 0 says how many; a client's details could say a
    /// billion): 4,096 parts of ≤ 56 KiB. A day-long route a point a second is ≈ 160 parts, an ECG 3.
    static let maxSeriesParts = 4_096

    /// A request path that is one of ``parameterisedRoutes``, with its parameter's text (not yet checked).
    struct SeriesPath {
        enum Kind { case route, electrocardiogram }
        var kind: Kind
        var parameter: Substring

        /// Matches `/workouts/{uuid}/route` and `/electrocardiograms/{uuid}`; `nil` for any other path.
        init?(_ path: String) {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            switch segments.count {
            case 4 where segments[0].isEmpty && segments[1] == "workouts" && segments[3] == "route":
                (kind, parameter) = (.route, segments[2])
            case 3 where segments[0].isEmpty && segments[1] == "electrocardiograms":
                (kind, parameter) = (.electrocardiogram, segments[2])
            default:
                return nil
            }
        }

        /// The template the path matched.
        var template: String { kind == .route ? "/workouts/{uuid}/route" : "/electrocardiograms/{uuid}" }

        /// The methods the path allows.
        var methods: [HTTPRequest.Method] { SinkResponder.parameterisedRoutes[template] ?? [] }
    }

    /// Answers a request to a ``SeriesPath`` (authenticated, method checked).
    func answer(_ path: SeriesPath, query: Query, client: ClientIdentity) async throws -> Response {
        guard let uuid = UUID(uuidString: String(path.parameter)) else {
            throw SinkError.badRequest("uuid \"\(path.parameter.prefix(64))\" in the path is not a UUID", field: "uuid")
        }
        switch path.kind {
        case .route: return try await route(of: uuid, query: query, client: client)
        case .electrocardiogram: return try await electrocardiogram(uuid, client: client)
        }
    }

    // MARK: - GET /workouts/{uuid}/route

    /// `GET /workouts/{uuid}/route[?format=geojson|gpx]`: the route as a GeoJSON Feature (``RouteGeoJSON``) or GPX 1.1
    /// (``RouteGPX``).
    func route(of workout: UUID, query: Query, client: ClientIdentity) async throws -> Response {
        let format = query["format"].map(String.init) ?? "geojson"
        guard format == "geojson" || format == "gpx" else {
            throw SinkError.badRequest("format \"\(format.prefix(64))\" is not geojson or gpx", field: "format")
        }
        let firstUUID = RoutePart.uuid(workout: workout, index: 0)
        guard let sample = try await storage.samples([firstUUID], type: .workoutRoute, for: client).first else {
            throw SinkError.absent("no route of workout \(workout.uuidString) is stored here (its part 0 is not)")
        }
        guard let first = try? RoutePart(details: sample.details ?? ""), first.workout == workout, first.index == 0,
              first.count <= Self.maxSeriesParts else {
            throw SinkError.absent("""
                the route of workout \(workout.uuidString) cannot be read: its part 0 is not a route part of it \
                with at most \(Self.maxSeriesParts) parts
                """)
        }
        let others = try await storage.samples(AssembledRoute.otherPartUUIDs(workout: workout, count: first.count),
                                               type: .workoutRoute, for: client)
            .compactMap { try? RoutePart(details: $0.details ?? "") }
        let route = AssembledRoute(first: first, others: others)
        let (body, contentType) = format == "gpx" ? (RouteGPX.document(route), RouteGPX.contentType)
                                                  : (RouteGeoJSON.feature(route), RouteGeoJSON.contentType)
        return Response(status: .ok, headers: [.contentType: contentType],
                        body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    // MARK: - GET /electrocardiograms

    /// `GET /electrocardiograms[?from&to]`: the recordings whose start is in `from..<to`, in start order
    /// (``ElectrocardiogramAnswer/list(_:)``), from their parts 0: every ECG part in the range is paged through (a
    /// recording's parts start within its 30 s), and only part 0's header is decoded.
    func electrocardiograms(_ query: Query, client: ClientIdentity) async throws -> Response {
        let range = try startRange(query)
        var summaries: [ElectrocardiogramAnswer.Summary] = []
        var cursor: String?
        repeat {
            let page = try await storage.page(
                SamplePageQuery(type: .electrocardiogram, cursor: cursor, limit: configuration.maxPageLimit,
                                maxBytes: configuration.maxPageBytes, startRange: range),
                for: client)
            for sample in page.samples {
                guard let details = sample.details,
                      let summary = ElectrocardiogramAnswer.Summary(partZeroDetails: details),
                      summary.recording == sample.uuid else { continue }
                summaries.append(summary)
            }
            cursor = page.nextCursor
        } while cursor != nil
        return json(ElectrocardiogramAnswer.list(summaries))
    }

    // MARK: - GET /electrocardiograms/{uuid}

    /// `GET /electrocardiograms/{uuid}`: one recording's summary with its voltages (``ElectrocardiogramAnswer/recording(_:)``).
    func electrocardiogram(_ recording: UUID, client: ClientIdentity) async throws -> Response {
        guard let sample = try await storage.samples([recording], type: .electrocardiogram, for: client).first else {
            throw SinkError.absent("no ECG recording \(recording.uuidString) is stored here")
        }
        guard let first = try? ElectrocardiogramPart(details: sample.details ?? ""), first.recording == recording,
              first.index == 0, first.count <= Self.maxSeriesParts else {
            throw SinkError.absent("""
                \(recording.uuidString) is not an ECG recording here: the sample is not part 0 of one with at most \
                \(Self.maxSeriesParts) parts
                """)
        }
        let others = try await storage.samples(
            AssembledElectrocardiogram.otherPartUUIDs(recording: recording, count: first.count),
            type: .electrocardiogram, for: client)
            .compactMap { try? ElectrocardiogramPart(details: $0.details ?? "") }
        return json(ElectrocardiogramAnswer.recording(AssembledElectrocardiogram(first: first, others: others)))
    }
}
