import HTTPTypes
import Logging
import Synchronization

/// Warns once when a sink without a token is reached through a proxy: a loopback bind's `Host` check lets the proxy's
/// requests in, so anyone who reaches the proxy could read and delete everything. Seen from `X-Forwarded-For` or
/// `Forwarded`, which proxies add (nginx with the recipe in `Planning/sink.md`).
final class ProxyWarning: Sendable {
    private let warned = Atomic<Bool>(false)

    /// The headers that mark a proxied request.
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!

    /// Logs the warning the first time `headers` show a proxy while `tokenless` (the sink has no token).
    func check(_ headers: HTTPFields, tokenless: Bool, logger: Logger) {
        guard tokenless, headers[Self.forwardedFor] != nil || headers[Self.forwarded] != nil else { return }
        guard !warned.exchange(true, ordering: .relaxed) else { return }
        logger.warning("""
            Requests come through a proxy (X-Forwarded-For) and this sink has no token: anyone who can reach the \
            proxy can read and delete every sample. Restart it with --token (or STEPSYNC_TOKEN) and give the clients \
            that token
            """)
    }
}
