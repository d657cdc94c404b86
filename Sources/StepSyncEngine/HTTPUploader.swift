import AsyncHTTPClient
import CompressNIO
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import StepSyncCore

/// The real ``Uploader``: `POST <server>/steps` (and `/samples`, `/steps/delete`, `/samples/delete`) through one
/// AsyncHTTPClient `HTTPClient` for the whole run.
///
/// Made with
/// ``withUploader(server:gzip:token:caCertificateFile:concurrency:requestTimeout:connectTimeout:probeTimeout:time:logger:_:)``,
/// which shuts the client down on every path. The client does not retry connection establishment itself (a refused
/// connection comes back at once, as ``UploadOutcome/unreachable(_:)``, and the engine waits for the sink with its own
/// shared backoff), connects
/// within 5 s, gives each request 60 s and a `/health` probe 10 s (each a parameter: tests under a loaded suite give
/// them minutes, so only the test clock decides when the engine waits). Network errors are classified in
/// `HTTPUploader+Errors.swift`.
public struct HTTPUploader: Uploader {
    let client: HTTPClient
    /// The sink's base URL, without a trailing slash.
    public let server: String
    private let gzip: Bool
    let token: String?
    private let requestTimeout: TimeAmount
    let probeTimeout: TimeAmount
    let logger: Logger
    /// The wall clock a certificate's dates are held against (``ServerCertificate/outOfDate(server:now:)``).
    let time: TimeSource

    /// Runs `body` with an uploader to `server`, shutting its HTTP client down afterwards, whatever happens.
    ///
    /// - Parameters:
    ///   - server: the sink's base URL, e.g. `http://127.0.0.1:8000` (see ``validateServerURL(_:)``).
    ///   - gzip: compress request bodies (`Content-Encoding: gzip`).
    ///   - token: sent as `Authorization: Bearer <token>` when given.
    ///   - concurrency: the most requests in flight (sizes the connection pool: the sync's in-flight ceiling,
    ///     `SyncRunMachine.Configuration.maxInFlight`).
    ///   - requestTimeout: the deadline of one request.
    ///   - connectTimeout: the deadline of establishing a connection.
    ///   - probeTimeout: the deadline of a `GET /health` probe (``probe()``).
    ///   - time: the wall clock a refused certificate's dates are held against.
    ///   - caCertificateFile: a PEM file whose certificates are trusted for `https://` besides the system's roots
    ///     (`--cacert`: a private CA or the sink's self-signed certificate; ``loadCertificates(pemFile:)``).
    public static func withUploader<R>(
        server: String,
        gzip: Bool = false,
        token: String? = nil,
        caCertificateFile: String? = nil,
        concurrency: Int = SyncRunMachine.Configuration.defaultConcurrency,
        requestTimeout: TimeAmount = .seconds(60),
        connectTimeout: TimeAmount = .seconds(5),
        probeTimeout: TimeAmount = .seconds(10),
        time: TimeSource,
        logger: Logger,
        _ body: (HTTPUploader) async throws -> R
    ) async throws -> R {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: connectTimeout, read: requestTimeout)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, concurrency)
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .disallow
        if let caCertificateFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.certificates(try loadCertificates(pemFile: caCertificateFile))]
            configuration.tlsConfiguration = tls
        }
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let uploader = HTTPUploader(
            client: client, server: server.hasSuffix("/") ? String(server.dropLast()) : server, gzip: gzip,
            token: token, requestTimeout: requestTimeout, probeTimeout: probeTimeout, logger: logger,
            time: time)
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

    /// The certificates of a PEM file (`--cacert`): a CA's, or the sink's own self-signed one.
    ///
    /// - Throws: ``SyncError/invalidCACertificate(_:reason:)`` when the file cannot be read or holds no certificate.
    public static func loadCertificates(pemFile path: String) throws(SyncError) -> [NIOSSLCertificate] {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw .invalidCACertificate(path, reason: "no readable file there")
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw .invalidCACertificate(path, reason: "not a PEM certificate (\(describe(error)))")
        }
        guard !certificates.isEmpty else { throw .invalidCACertificate(path, reason: "no certificate in it") }
        return certificates
    }

    /// Checks that `url` is an `http` or `https` URL with a host, a port (if any) in 1…65535 and no query.
    public static func validateServerURL(_ url: String) throws(SyncError) {
        if let port = url.firstMatch(of: /^[^:]+:\/\/(?:[^@\/]*@)?(?:\[[^\]]*\]|[^:\/?#]*):([^\/?#]*)/)?.output.1,
           !port.isEmpty, Int(port).map({ !(1...65535).contains($0) }) ?? true {
            throw .invalidServerURL(url, reason: "the port \(port.prefix(16)) is outside 1…65535")
        }
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
        // A base path (a sink published under a prefix by a proxy) is kept; one ending in an endpoint is a mistake.
        let components = parsed.path.split(separator: "/").map(String.init)
        let endpoints: Set<String> = ["steps", "samples", "health", "stats", "daily", "delete", "types", "openapi.json"]
        if let last = components.last, endpoints.contains(last.lowercased()) {
            var base = components
            while let tail = base.last, endpoints.contains(tail.lowercased()) { base.removeLast() }
            var suggestion = URLComponents(string: url)
            suggestion?.path = base.isEmpty ? "" : "/" + base.joined(separator: "/")
            let suggested = suggestion?.string ?? "the URL without /\(last)"
            throw .invalidServerURL(url, reason: """
                it ends with the sink's endpoint /\(components.suffix(components.count - base.count).joined(separator: "/")); \
                give the sink's base URL: \(suggested)
                """)
        }
    }

    // MARK: - Uploading

    /// `POST <server><endpoint>` with `body` (gzipped with `gzip`); see ``Uploader/send(_:to:itemCount:)``.
    public func send(_ body: [UInt8], to endpoint: SinkEndpoint, itemCount: Int) async throws -> UploadOutcome {
        var request = HTTPClientRequest(url: server + endpoint.path)
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
                let bytes = responseBody.readableBytesView
                let ack = endpoint.isDeletion ? (try? SinkDeletionAnswer(bytes: bytes))?.acknowledgement
                                              : (try? SinkIngestAnswer(bytes: bytes))?.acknowledgement
                guard let ack else {
                    return .rejected(status: 502, message: "the sink's answer is not an acknowledgement: "
                                     + Self.text(responseBody), retryAfterSeconds: nil)
                }
                return .accepted(ack)
            }
            if (400..<500).contains(status), !endpoint.isDeletion,
               let refusal = (try? SinkErrorAnswer(bytes: responseBody.readableBytesView))?
                   .sampleRefusal(status: status, itemCount: itemCount) {
                return .refusedSample(refusal)
            }
            return .rejected(status: status, message: Self.message(responseBody, status: response.status),
                             retryAfterSeconds: RetryAfter.seconds(response.headers.first(name: "Retry-After")))
        } catch {
            if Task.isCancelled { throw CancellationError() }
            return Self.outcome(of: error)
        }
    }

    /// `GET <server>/health`: `nil` when a stepsync sink answered (healthy or not), else why not: it cannot be
    /// reached, or what answers is not a stepsync sink (``SinkFailure/Kind/notASink(status:)``: a web server, a
    /// wrong path). A proxy's 429/502/503/504 counts as a sink that is away (the sends find out and wait).
    public func probe() async -> SinkFailure? {
        var request = HTTPClientRequest(url: server + "/health")
        request.method = .GET
        do {
            let response = try await client.execute(request, timeout: probeTimeout, logger: logger)
            let body = try await response.body.collect(upTo: 1 << 16)
            let status = Int(response.status.code)
            if SinkHealthAnswer.isSink(Array(body.readableBytesView)) || [429, 502, 503, 504].contains(status) {
                return nil
            }
            let type = response.headers.first(name: "Content-Type").map { $0.split(separator: ";")[0] + ": " } ?? ""
            return SinkFailure(.notASink(status: status),
                               detail: "\(type)\(SinkHealthAnswer.excerpt(body.readableBytesView))")
        } catch {
            return await failure(of: error)
        }
    }

    /// A request's error as a failure of the whole sink: it could not be reached, or not trusted — and when not
    /// trusted because its certificate's dates are past or to come, that (``SinkFailure/Kind/outOfDateCertificate``).
    func failure(of error: any Error) async -> SinkFailure {
        if Task.isCancelled { return SinkFailure(.unreachable, detail: "cancelled") }
        switch Self.outcome(of: error) {
        case .unreachable(let detail): return SinkFailure(.unreachable, detail: detail)
        case .untrusted(let detail):
            if let dates = await ServerCertificate.outOfDate(server: server, now: time.nowMs() / 1000) {
                return SinkFailure(.outOfDateCertificate, detail: dates)
            }
            return SinkFailure(.untrusted, detail: detail)
        case .transportFailure(let detail): return SinkFailure(.unreachable, detail: detail)
        case .misaddressed(let detail): return SinkFailure(.misaddressed, detail: detail)
        default: return SinkFailure(.unreachable, detail: Self.describe(error))
        }
    }

    /// Empties the sink of every type this client holds there: `GET <server>/samples/types` for the types and their
    /// counts, `DELETE <server>/samples?type=T` for each, then `DELETE <server>/samples` for any type that arrived
    /// meanwhile (JSONL and PostgreSQL sinks alike). Returns the samples deleted per type (the last one `nil`: types
    /// that arrived meanwhile, only when there were any).
    ///
    /// - Throws: ``SyncError/remote(_:)`` on a non-2xx answer; the client's error when the sink cannot be reached.
    public func emptySink() async throws -> [(type: SampleType?, deleted: Int)] {
        let listing = try await call(.GET, "/samples/types", answer: SinkTypesAnswer.self)
        var deleted: [(type: SampleType?, deleted: Int)] = []
        for name in listing.types.keys.sorted() {
            let query = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
            let answer = try await call(.DELETE, "/samples?type=" + query, answer: SinkClearAnswer.self)
            deleted.append((SampleType(name), answer.deleted))
        }
        let rest = try await call(.DELETE, "/samples", answer: SinkClearAnswer.self).deleted
        if rest > 0 { deleted.append((nil, rest)) }
        return deleted
    }

    /// `method <server><path>` with the token; the answer read as `answer`.
    ///
    /// - Throws: ``SyncError/remote(_:)`` on a non-2xx answer or one that is not `answer` (naming the field at fault
    ///   and quoting the body's start); the client's error when the sink cannot be reached.
    private func call<Answer: SinkAnswer>(_ method: HTTPMethod, _ path: String, answer: Answer.Type) async throws
        -> Answer
    {
        var request = HTTPClientRequest(url: server + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response = try await client.execute(request, timeout: requestTimeout, logger: logger)
        let body = try await response.body.collect(upTo: 1 << 20)
        let endpoint = String(path.prefix { $0 != "?" })
        guard (200..<300).contains(Int(response.status.code)) else {
            let message = Self.message(body, status: response.status)
            throw SyncError.remote("\(method.rawValue) \(endpoint): HTTP \(response.status.code): \(message)")
        }
        do {
            return try Answer(bytes: body.readableBytesView)
        } catch {
            throw SyncError.remote("\(method.rawValue) \(endpoint): \(error)")
        }
    }

    // MARK: - Responses

    /// The server's message from an error body (``SinkErrorAnswer/message(in:)``: the sink's, Hummingbird's,
    /// a proxy's JSON), or the text itself, or the status's reason phrase for an empty body.
    static func message(_ body: ByteBuffer, status: HTTPResponseStatus) -> String {
        if let message = SinkErrorAnswer.message(in: body.readableBytesView) { return message }
        let text = text(body)
        return text.isEmpty ? status.reasonPhrase : text
    }

    /// A short excerpt of a body that is not the sink's JSON (a proxy's or another server's page).
    private static func text(_ body: ByteBuffer) -> String {
        guard body.readableBytes > 0 else { return "" }
        return SinkHealthAnswer.excerpt(body.readableBytesView, limit: 160)
    }
}
