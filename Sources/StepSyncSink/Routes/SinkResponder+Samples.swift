import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StepSyncCore

/// Samples and deletions: ingest (`POST`), pages (`GET`), clearing (`DELETE`) and deletion by uuid, in the two
/// doors' shapes (step counts as HealthStepsSync sends them, samples of every type), and the types held.
extension SinkResponder {
    /// The routes of samples and deletions.
    static let sampleRoutes: [SinkRoute] = [
        SinkRoute("/steps",
                  get: { try await $0.page($1.query, type: SampleType.stepCount, shape: .steps, client: $1.client) },
                  post: { try await $0.post($1.request, shape: .steps, client: $1.client) },
                  delete: { try await $0.clear([.stepCount], client: $1.client) }),
        SinkRoute("/steps/delete", post: { try await $0.deleteUUIDs($1.request, type: .stepCount, client: $1.client) }),
        SinkRoute("/samples",
                  get: { try await $0.page($1.query, type: try $0.requiredType($1.query), shape: .samples, client: $1.client) },
                  post: { try await $0.post($1.request, shape: .samples, client: $1.client) },
                  delete: { try await $0.clear(try $0.optionalType($1.query).map { [$0] }, client: $1.client) }),
        SinkRoute("/samples/types", get: { try await $0.types(client: $1.client) }),
        SinkRoute("/samples/delete", post: { try await $0.deleteUUIDs($1.request, type: nil, client: $1.client) }),
    ]

    /// The two doors' shapes: `/steps` objects or `/samples` objects.
    enum Shape { case steps, samples }

    /// `POST /steps` and `POST /samples`.
    func post(_ request: Request, shape: Shape, client: ClientIdentity) async throws -> Response {
        var reservation = 0
        defer { budget.release(reservation) }
        let body = try await jsonBody(request, reservation: &reservation)
        let decoded: DecodedSamples
        do {
            decoded = try decode(body, shape)
        } catch {
            throw SinkError.invalid(error)
        }
        let outcome = try await storage.insert(SampleBatch(decoded, body: body), for: client)
        activity.recordIngest(inserted: outcome.inserted, duplicates: outcome.duplicates, client: client)
        metrics.recordIngest(types: Self.typeCounts(decoded.samples), inserted: outcome.inserted,
                             duplicates: outcome.duplicates)
        return json(SinkIngestAnswer(saved: decoded.samples.count, inserted: outcome.inserted,
                                     duplicates: outcome.duplicates).encoded())
    }

    /// How many of `samples` are of each type (one comparison a sample for the usual batch of one type).
    static func typeCounts(_ samples: [HealthSample]) -> [SampleType: Int] {
        guard let first = samples.first?.type else { return [:] }
        if samples.allSatisfy({ $0.type == first }) { return [first: samples.count] }
        return samples.reduce(into: [:]) { $0[$1.type, default: 0] += 1 }
    }

    private func decode(_ body: ByteBuffer, _ shape: Shape) throws(WireError) -> DecodedSamples {
        let result: Result<DecodedSamples, WireError> = body.withUnsafeReadableBytes { raw in
            do throws(WireError) {
                return .success(shape == .steps ? try WireDecoder.decodeStepsBody(raw)
                                                : try WireDecoder.decodeSamplesBody(raw))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// `DELETE /steps`, `DELETE /samples[?type=T]`.
    private func clear(_ types: [SampleType]?, client: ClientIdentity) async throws -> Response {
        let count = try await storage.clear(types, for: client)
        return json(SinkClearAnswer(deleted: count).encoded())
    }

    /// `POST /steps/delete {"uuids":[…]}` and `POST /samples/delete {"type":…,"uuids":[…]}`.
    private func deleteUUIDs(_ request: Request, type fixedType: SampleType?, client: ClientIdentity) async throws -> Response {
        var reservation = 0
        defer { budget.release(reservation) }
        let body = try await jsonBody(request, reservation: &reservation)
        let parsed: DeletionRequest
        do {
            parsed = try DeletionRequest.parse(Data(buffer: body), type: fixedType)
        } catch {
            throw SinkError.badRequest(error.message, field: error.field)
        }
        let (type, uuids) = (parsed.type, parsed.uuids)
        let outcome = try await storage.delete(uuids, type: type, for: client)
        return json(SinkDeletionAnswer(deleted: outcome.deleted, missing: outcome.missing).encoded())
    }

    /// `GET /steps` and `GET /samples?type=T`: `{"storedCount":N,"samples":[…],"nextCursor":…}`.
    private func page(_ query: Query, type: SampleType, shape: Shape,
                      client: ClientIdentity) async throws -> Response {
        var limit = configuration.defaultPageLimit
        if let text = query["limit"] {
            guard let value = Int(text), value > 0 else {
                throw SinkError.badRequest("limit \"\(text.prefix(64))\" is not a positive integer", field: "limit")
            }
            limit = min(value, configuration.maxPageLimit)
        }
        let cursor = query["cursor"].map(String.init)
        let range = try startRange(query)
        let page = try await storage.page(
            SamplePageQuery(type: type, cursor: cursor, limit: limit, maxBytes: configuration.maxPageBytes,
                            startRange: range),
            for: client)
        var out: [UInt8] = []
        out.reserveCapacity(64 + page.samples.count * 240)
        out.append(contentsOf: #"{"storedCount":\#(page.storedCount),"samples":["#.utf8)
        for (i, sample) in page.samples.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            if shape == .steps {
                WireEncoder.appendObject(WireSample(sample), to: &out)
            } else {
                WireEncoder.appendSampleObject(sample, to: &out)
            }
        }
        out.append(contentsOf: #"],"nextCursor":\#(page.nextCursor.map { "\"\($0)\"" } ?? "null")}"#.utf8)
        return json(out)
    }

    /// `GET /samples/types`: `{"types":{"T":count,…}}`.
    private func types(client: ClientIdentity) async throws -> Response {
        return json(SinkTypesAnswer(counts: try await storage.typeCounts(for: client)).encoded())
    }
}
