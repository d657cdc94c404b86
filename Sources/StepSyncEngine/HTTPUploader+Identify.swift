import AsyncHTTPClient
import NIOCore
import StepSyncCore

extension HTTPUploader {
    /// ``probe()``'s `GET <server>/health`, also reading the sink's identity (``SinkHealthBody/sink``), then
    /// `GET <server>/samples/types` with the token: every sync checks its token this way before it sends anything,
    /// whether intervals are pending or not (a sink without that endpoint, 404 or 405, is taken at its word). A 401
    /// or 403 is ``SinkFailure/Kind/refused(status:)`` (the run stops at once); 429/5xx and network errors are the
    /// sink being away (the run waits and asks again).
    public func identify() async -> SinkIdentification {
        let sink: String?
        do {
            var request = HTTPClientRequest(url: server + "/health")
            request.method = .GET
            let response = try await client.execute(request, timeout: probeTimeout, logger: logger)
            let body = try await response.body.collect(upTo: 1 << 16)
            let health = try? SinkHealthBody(bytes: body.readableBytesView)
            guard let health, health.isStepSyncSink else {
                let status = Int(response.status.code)
                if [429, 502, 503, 504].contains(status) {
                    // A proxy before a sink that is away: wait for it, as a send would.
                    return .failed(SinkFailure(.unavailable(status: status), detail: Self.message(body, status: response.status),
                                               retryAfterSeconds: RetryAfter.seconds(response.headers.first(name: "Retry-After"))))
                }
                return .failed(SinkFailure(.notASink(status: status),
                                           detail: SinkHealthAnswer.excerpt(body.readableBytesView)))
            }
            sink = health.sink
        } catch {
            return .failed(await failure(of: error))
        }
        do {
            var request = HTTPClientRequest(url: server + "/samples/types")
            request.method = .GET
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            let response = try await client.execute(request, timeout: probeTimeout, logger: logger)
            let body = try await response.body.collect(upTo: 1 << 20)
            let status = Int(response.status.code)
            switch status {
            case 200..<300:
                return .target(SinkTarget(server: server, sink: sink, token: SinkTarget.fingerprint(token: token)))
            case 404, 405:
                // A sink without the endpoint (HealthStepsSync's, an older stepsync, a front that forwards only the
                // writes): nothing to check the token against; the sends find a refused token out.
                return .target(SinkTarget(server: server, sink: sink, token: SinkTarget.fingerprint(token: token)))
            case 401, 403:
                return .failed(SinkFailure(.refused(status: status), detail: Self.message(body, status: response.status)))
            case 429, 500..<600:
                return .failed(SinkFailure(.unavailable(status: status), detail: Self.message(body, status: response.status),
                                           retryAfterSeconds: RetryAfter.seconds(response.headers.first(name: "Retry-After"))))
            default:
                return .failed(SinkFailure(.notASink(status: status),
                                           detail: "GET /samples/types: " + Self.message(body, status: response.status)))
            }
        } catch {
            return .failed(await failure(of: error))
        }
    }
}
