import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import StepSyncCore

/// Routes and answers the sink's requests (see `Planning/sink.md` for the endpoints).
///
/// A hand-written switch rather than Hummingbird's `Router`, because the router answers 404 where the wire needs
/// 405 for a known path with the wrong method.
struct SinkResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let log: SampleLog
    let configuration: SinkConfiguration

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let response: Response
        do {
            response = try await route(request, context: context)
        } catch let error as SinkError {
            response = try error.response(from: request, context: context)
        } catch let error as SampleLogError {
            response = try SinkError.storage(error.description).response(from: request, context: context)
        }
        context.logger.info("Request", metadata: [
            "http.method": "\(request.method.rawValue)", "http.path": "\(request.uri.path)",
            "http.status": "\(response.status.code)", "http.duration": "\(ContinuousClock.now - started)",
        ])
        return response
    }

    private func route(_ request: Request, context: Context) async throws -> Response {
        var path = request.uri.path
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        if path == "/health" {
            guard request.method == .get || request.method == .head else {
                throw SinkError.methodNotAllowed(request.method, path, allow: [.get])
            }
            return json(#"{"status":"ok"}"#)
        }
        let allowed: [HTTPRequest.Method]
        switch path {
        case "/steps": allowed = [.get, .post, .delete]
        case "/steps/delete": allowed = [.post]
        case "/steps/daily": allowed = [.get]
        default: throw SinkError.notFound(path)
        }
        try authorize(request)
        guard allowed.contains(request.method) else { throw SinkError.methodNotAllowed(request.method, path, allow: allowed) }
        switch (path, request.method) {
        case ("/steps", .post): return try await postSteps(request)
        case ("/steps", .get): return try await getSteps(request)
        case ("/steps", .delete):
            let count = try await log.clear()
            return json(#"{"message":"Deleted \#(count) samples","deleted":\#(count)}"#)
        case ("/steps/delete", .post): return try await deleteSteps(request)
        default: return try await daily()
        }
    }

    private func authorize(_ request: Request) throws {
        guard let token = configuration.token else { return }
        let given = request.headers[.authorization] ?? ""
        let expected = "Bearer " + token
        // Compare every byte so timing does not reveal a prefix.
        var diff = given.utf8.count ^ expected.utf8.count
        for (a, b) in zip(given.utf8, expected.utf8) { diff |= Int(a ^ b) }
        guard diff == 0 else { throw SinkError.unauthorized() }
    }

    // MARK: - Handlers

    private func postSteps(_ request: Request) async throws -> Response {
        let body = try await jsonBody(request)
        let samples: [WireSample]
        do {
            samples = try decode(body)
        } catch {
            throw SinkError.invalid(error)
        }
        let (inserted, duplicates) = try await log.append(samples)
        return json(#"{"saved":\#(samples.count),"message":"Success","inserted":\#(inserted),"duplicates":\#(duplicates)}"#)
    }

    private func decode(_ body: ByteBuffer) throws(WireError) -> [WireSample] {
        let result: Result<[WireSample], WireError> = body.withUnsafeReadableBytes { raw in
            do throws(WireError) { return .success(try WireDecoder.decodeRequest(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private func deleteSteps(_ request: Request) async throws -> Response {
        let body = try await jsonBody(request)
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any] else {
            throw SinkError.badRequest("malformed JSON: expected {\"uuids\":[\"<UUID>\",…]}")
        }
        guard let list = object["uuids"] as? [Any] else {
            throw SinkError.badRequest("field \"uuids\" " + (object["uuids"] == nil ? "is missing" : "must be an array of strings"))
        }
        var uuids: [UUID] = []
        for (i, item) in list.enumerated() {
            guard let text = item as? String, let uuid = UUID(uuidString: text) else {
                throw SinkError.badRequest("uuids[\(i)]: \(item) is not a UUID")
            }
            uuids.append(uuid)
        }
        let (deleted, missing) = try await log.delete(uuids)
        return json(#"{"deleted":\#(deleted),"missing":\#(missing)}"#)
    }

    private func getSteps(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        var limit = configuration.defaultPageLimit
        if let text = query["limit"] {
            guard let value = Int(text), value > 0 else { throw SinkError.badRequest("limit must be a positive integer") }
            limit = min(value, configuration.maxPageLimit)
        }
        var cursor = 0
        if let text = query["cursor"], !text.isEmpty {
            guard let value = Int(text), value >= 0 else { throw SinkError.badRequest("cursor \(text) is not one this sink gave") }
            cursor = value
        }
        var range: Range<Int64>?
        if query["from"] != nil || query["to"] != nil {
            func instant(_ name: String, default value: Int64) throws -> Int64 {
                guard let text = query[Substring(name)] else { return value }
                guard let ms = ISO8601Millis.parse(text) else {
                    throw SinkError.badRequest("\(name) \(text) is not an ISO-8601 date such as 2025-05-11T16:27:22.000Z")
                }
                return ms
            }
            let from = try instant("from", default: .min)
            let to = try instant("to", default: .max)
            guard to >= from else { throw SinkError.badRequest("to is before from") }
            range = from..<to
        }
        let (lines, next) = try await log.page(cursor: cursor, limit: limit, range: range)
        let stored = await log.liveCount
        var out: [UInt8] = []
        out.reserveCapacity(64 + lines.reduce(0) { $0 + $1.count + 1 })
        out.append(contentsOf: #"{"storedCount":\#(stored),"samples":["#.utf8)
        for (i, line) in lines.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: line)
        }
        out.append(contentsOf: #"],"nextCursor":\#(next.map { "\"\($0)\"" } ?? "null")}"#.utf8)
        return json(out)
    }

    private func daily() async throws -> Response {
        let days = await log.dailyTotals()
        let items = days.map { day, steps in
            let date = ISO8601Millis.format(day * Milliseconds.day).prefix(10)
            let rounded = steps.rounded()
            let value = abs(steps - rounded) < 0.000_5 ? "\(Int64(rounded))" : "\(steps)"
            return #"{"date":"\#(date)","steps":\#(value)}"#
        }
        return json(#"{"days":[\#(items.joined(separator: ","))]}"#)
    }

    // MARK: - Bodies

    /// The request body as JSON bytes: content type checked, size limited, gzip inflated with its own limit.
    private func jsonBody(_ request: Request) async throws -> ByteBuffer {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "application/json" else {
            throw SinkError.unsupportedMediaType("Content-Type must be application/json, not \(type.isEmpty ? "absent" : type)")
        }
        let encoding = request.headers[.contentEncoding]?.lowercased().trimmingCharacters(in: .whitespaces) ?? "identity"
        guard encoding == "gzip" || encoding == "identity" else {
            throw SinkError.unsupportedMediaType("Content-Encoding \(encoding) is not supported; use gzip or none")
        }
        let limit = configuration.maxBodyBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw SinkError.tooLarge("body of \(length) bytes is over the limit of \(limit)")
        }
        var body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw SinkError.tooLarge("body is over the limit of \(limit) bytes")
        }
        guard encoding == "gzip" else { return body }
        do {
            return try body.decompress(with: .gzip, maxSize: configuration.maxInflatedBytes)
        } catch let error as CompressNIOError where error == .bufferOverflow {
            throw SinkError.tooLarge("gzip body inflates to more than the limit of \(configuration.maxInflatedBytes) bytes")
        } catch {
            throw SinkError.badRequest("gzip body is corrupt: \(error)")
        }
    }

    private func json(_ text: String) -> Response { json(Array(text.utf8)) }

    private func json(_ bytes: [UInt8]) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
