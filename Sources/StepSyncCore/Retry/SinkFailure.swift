/// A failure that speaks for the whole sink rather than for one interval: it cannot be reached, or it answers
/// 429/502/503/504. The engine then stops starting intervals and waits for the sink (``SinkOutageMachine``).
public struct SinkFailure: Hashable, Sendable {
    /// How the sink failed.
    public enum Kind: Hashable, Sendable {
        /// No connection: refused, reset, name resolution, TLS, connect timeout.
        case unreachable
        /// The sink (or a proxy before it) answered this status: 429, 502, 503, 504.
        case unavailable(status: Int)
        /// The sink's TLS certificate is not trusted here (unknown CA, self-signed, wrong host): waiting does not
        /// mend it, so the run stops at once (``SinkOutageMachine``) with every unsent interval pending.
        case untrusted
        /// The sink's TLS certificate has expired or is not valid yet (``detail`` names its date): the sink must
        /// renew it (or a clock is wrong); the run stops at once like ``untrusted``.
        case outOfDateCertificate
        /// What answers at the URL is not a stepsync sink (its `GET /health` is not the sink's): a wrong `--server`,
        /// which waiting does not mend either, so the run stops at once with every interval pending.
        case notASink(status: Int)
        /// The sink refuses this client (401, 403): a missing, wrong or revoked token. Every request would get the
        /// same answer, so the run stops at once with every interval pending.
        case refused(status: Int)
        /// The sink is not the one the store's ledger synced to (another sink, the same address serving other data,
        /// or another token): sending only what is pending would leave it without the rest, so the run stops before
        /// sending (``SinkTarget``). `detail` names both and the command to use.
        case anotherSink
        /// The URL names no sink this machine could ever reach (a host name that does not resolve, `https://` at a
        /// port that does not speak TLS): the run stops at once, saying what to fix in `--server`.
        case misaddressed
    }

    /// Whether waiting cannot mend the failure (``Kind/untrusted``, ``Kind/notASink(status:)``,
    /// ``Kind/refused(status:)``, ``Kind/anotherSink``): the run gives up at once.
    public var isFatal: Bool {
        switch kind {
        case .untrusted, .outOfDateCertificate, .notASink, .refused, .anotherSink, .misaddressed: return true
        case .unreachable, .unavailable: return false
        }
    }

    /// The ``Kind/untrusted`` detail of a certificate that does not name the host connected to.
    public static let anotherHostsCertificate = "the certificate is not for this host"

    /// How the sink failed.
    public var kind: Kind
    /// What the network or the sink said: `connection refused`, `down for maintenance`.
    public var detail: String
    /// The delay the sink named (`Retry-After`), in seconds.
    public var retryAfterSeconds: Double?

    /// Creates a failure.
    public init(_ kind: Kind, detail: String, retryAfterSeconds: Double? = nil) {
        self.kind = kind
        self.detail = detail
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// The one line a person reads, naming the server:
    /// `cannot reach http://127.0.0.1:8000: connection refused — is stepsync serve running?` or
    /// `the sink at http://127.0.0.1:8000 is unavailable (HTTP 503: down for maintenance)`.
    public func message(server: String) -> String {
        switch kind {
        case .unreachable:
            // A TLS sink closes a plain-HTTP connection without a word: say so for http:// URLs.
            let hint = detail == "connection closed by the server" && server.lowercased().hasPrefix("http://")
                ? " (or, if it serves HTTPS — serve --tls-cert — use https://)" : ""
            return "cannot reach \(server): \(detail) — is stepsync serve running?\(hint)"
        case .misaddressed:
            return "cannot reach \(server): \(detail)"
        case .unavailable(let status):
            let what = status == 429 ? "asks to slow down" : "is unavailable"
            return "the sink at \(server) \(what) (HTTP \(status): \(detail))"
        case .untrusted where detail == Self.anotherHostsCertificate:
            // --cacert cannot mend a certificate made for another name: say what can.
            return "the sink at \(server) presented a TLS certificate for another host name: give --server the name "
                + "the certificate was made for (its subjectAltName), or make its certificate for this name"
        case .untrusted:
            return "the sink at \(server) presented a TLS certificate this machine does not trust (\(detail)): "
                + "give its CA or self-signed certificate with --cacert FILE (or STEPSYNC_CACERT)"
        case .outOfDateCertificate:
            return "the sink at \(server) cannot be trusted: \(detail) — renew it on the sink (stepsync serve "
                + "--tls-cert), or check the clocks of both machines"
        case .notASink(let status):
            return "\(server) is not a stepsync sink: GET /health answered HTTP \(status) (\(detail)); give --server "
                + "the base URL stepsync serve prints (listening on http://HOST:PORT), with the path prefix if a proxy "
                + "publishes it under one"
        case .refused(let status):
            return "the sink at \(server) refuses this client (HTTP \(status): \(detail)): check --token "
                + "(or STEPSYNC_TOKEN); on a PostgreSQL sink, the client's token from stepsync clients add"
        case .anotherSink:
            return detail
        }
    }

    /// The ledger's short note for an interval put back because of this failure: `connection refused`,
    /// `HTTP 503: down for maintenance`.
    public var note: String {
        switch kind {
        case .unreachable, .untrusted, .outOfDateCertificate, .anotherSink, .misaddressed: return detail
        case .unavailable(let status), .notASink(let status), .refused(let status): return "HTTP \(status): \(detail)"
        }
    }
}
