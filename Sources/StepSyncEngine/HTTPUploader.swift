import AsyncHTTPClient
import CompressNIO
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StepSyncCore

/// The real ``Uploader``: `POST <server>/steps` through one AsyncHTTPClient `HTTPClient` for the whole run.
///
/// Made with ``withUploader(server:gzip:token:concurrency:logger:_:)``, which shuts the client down on every path.
/// The client does not retry connection establishment itself (a refused connection comes back at once, as a
/// transient ``UploadOutcome/transportFailure(_:)`` the engine retries with its own backoff), connects within
/// 5 s and gives each request 60 s.
public struct HTTPUploader: Uploader {
    private let client: HTTPClient
    private let server: String
    private let gzip: Bool
    private let token: String?
    private let requestTimeout: TimeAmount
    private let logger: Logger

    /// Runs `body` with an uploader to `server`, shutting its HTTP client down afterwards, whatever happens.
    ///
    /// - Parameters:
    ///   - server: the sink's base URL, e.g. `http://127.0.0.1:8000` (see ``validateServerURL(_:)``).
    ///   - gzip: compress request bodies (`Content-Encoding: gzip`).
    ///   - token: sent as `Authorization: Bearer <token>` when given.
    ///   - concurrency: the most requests in flight (sizes the connection pool).
    ///   - requestTimeout: the deadline of one request.
    public static func withUploader<R>(
        server: String,
        gzip: Bool = false,
        token: String? = nil,
        concurrency: Int = 3,
        requestTimeout: TimeAmount = .seconds(60),
        logger: Logger,
        _ body: (HTTPUploader) async throws -> R
    ) async throws -> R {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(5), read: requestTimeout)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, concurrency)
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let uploader = HTTPUploader(
            client: client, server: server.hasSuffix("/") ? String(server.dropLast()) : server, gzip: gzip,
            token: token, requestTimeout: requestTimeout, logger: logger)
        let result: R
        do {
            result = try await body(uploader)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return result
    }

    /// Checks that `url` is an `http` or `https` URL with a host and no query.
    public static func validateServerURL(_ url: String) throws(SyncError) {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased() else {
            throw .invalidServerURL(url, reason: "not a URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw .invalidServerURL(url, reason: "the scheme must be http or https, not \(scheme)")
        }
        guard let host = parsed.host, !host.isEmpty else { throw .invalidServerURL(url, reason: "no host") }
        guard parsed.query == nil, parsed.fragment == nil else {
            throw .invalidServerURL(url, reason: "give the base URL only, without query or fragment")
        }
    }

    // MARK: - Uploading

    /// `POST <server>/steps` with the samples body (gzipped with `gzip`); see ``Uploader/upload(_:sampleCount:)``.
    public func upload(_ body: [UInt8], sampleCount: Int) async throws -> UploadOutcome {
        try await post(body, path: "/steps", parse: Self.acknowledgement)
    }

    /// `POST <server>/steps/delete` with the uuids body; see ``Uploader/uploadDeletions(_:uuidCount:)``.
    public func uploadDeletions(_ body: [UInt8], uuidCount: Int) async throws -> UploadOutcome {
        try await post(body, path: "/steps/delete", parse: Self.deletionAcknowledgement)
    }

    private func post(
        _ body: [UInt8], path: String, parse: (ByteBuffer) -> SinkAcknowledgement?
    ) async throws -> UploadOutcome {
        var request = HTTPClientRequest(url: server + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        var buffer = ByteBuffer(bytes: body)
        if gzip {
            do {
                buffer = try buffer.compress(with: .gzip())
            } catch {
                return .transportFailure("gzip compression failed: \(error)")
            }
            request.headers.add(name: "Content-Encoding", value: "gzip")
        }
        request.body = .bytes(buffer)
        do {
            let response = try await client.execute(request, timeout: requestTimeout, logger: logger)
            let responseBody = try await response.body.collect(upTo: 1 << 20)
            let status = Int(response.status.code)
            if (200..<300).contains(status) {
                guard let ack = parse(responseBody) else {
                    return .rejected(status: 502, message: "the sink's answer is not an acknowledgement: "
                                     + Self.text(responseBody), retryAfterSeconds: nil)
                }
                return .accepted(ack)
            }
            return .rejected(status: status, message: Self.message(responseBody, status: response.status),
                             retryAfterSeconds: RetryAfter.seconds(response.headers.first(name: "Retry-After")))
        } catch {
            if Task.isCancelled { throw CancellationError() }
            return .transportFailure(Self.describe(error))
        }
    }

    /// `DELETE <server>/steps`: empties the sink. Returns the sink's message (e.g. `Deleted 42 samples`).
    ///
    /// - Throws: ``SyncError/remote(_:)`` on a non-2xx answer; the client's error when the sink cannot be reached.
    public func deleteAll() async throws -> String {
        var request = HTTPClientRequest(url: server + "/steps")
        request.method = .DELETE
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await client.execute(request, timeout: requestTimeout, logger: logger)
        let body = try await response.body.collect(upTo: 1 << 20)
        guard (200..<300).contains(Int(response.status.code)) else {
            throw SyncError.remote("DELETE /steps: HTTP \(response.status.code): \(Self.message(body, status: response.status))")
        }
        return Self.message(body, status: response.status)
    }

    // MARK: - Responses

    private struct Acknowledgement: Decodable {
        var saved: Int
        var inserted: Int?
        var duplicates: Int?
    }

    private struct DeletionAcknowledgement: Decodable {
        var deleted: Int
        var missing: Int
    }

    private static func deletionAcknowledgement(_ body: ByteBuffer) -> SinkAcknowledgement? {
        guard let ack = try? JSONDecoder().decode(DeletionAcknowledgement.self, from: Data(body.readableBytesView)) else {
            return nil
        }
        return SinkAcknowledgement(saved: ack.deleted + ack.missing, inserted: 0, duplicates: 0, deleted: ack.deleted)
    }

    private static func acknowledgement(_ body: ByteBuffer) -> SinkAcknowledgement? {
        guard let ack = try? JSONDecoder().decode(Acknowledgement.self, from: Data(body.readableBytesView)) else {
            return nil
        }
        let inserted = ack.inserted ?? ack.saved
        return SinkAcknowledgement(saved: ack.saved, inserted: inserted, duplicates: ack.duplicates ?? ack.saved - inserted)
    }

    /// The server's message from an error body: `{"error":{"message":…}}` (Hummingbird), `{"message":…}`,
    /// `{"error":"…"}`, or the text itself.
    private static func message(_ body: ByteBuffer, status: HTTPResponseStatus) -> String {
        if let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] {
            if let error = object["error"] as? [String: Any], let message = error["message"] as? String { return message }
            if let message = object["message"] as? String { return message }
            if let message = object["error"] as? String { return message }
            if let message = object["reason"] as? String { return message }
        }
        let text = text(body)
        return text.isEmpty ? status.reasonPhrase : text
    }

    private static func text(_ body: ByteBuffer) -> String {
        let text = String(decoding: body.readableBytesView.prefix(500), as: UTF8.self)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }
}
