import Crypto
import Foundation

/// Where a sync sends: the sink's address, its identity (``SinkHealthBody/sink``) and a fingerprint of the token it
/// is sent with. The store's ledger remembers the target of its last sync; ``check(recorded:hasSynced:)`` decides
/// whether this run may send only what is pending.
///
/// A ledger's "synced" is true of one sink and one client only. Pointed at another sink (another address, or the
/// same address now serving other data: a wiped JSONL directory, another database) or sent with another token (on
/// PostgreSQL another client, whose samples are apart), a sync that sent only the pending intervals would report
/// 100 % while that sink holds nothing. So a run stops before sending and names both targets; `sync --resend`
/// queues every interval again (the sink de-duplicates what it already holds).
///
/// | recorded | now | decision |
/// |---|---|---|
/// | nothing synced yet | any | send (and record) |
/// | sink A | sink A, same token | send |
/// | sink A | sink B | stop: another sink |
/// | sink A | sink A, another token | stop: another token |
/// | no identity (an older store or sink) | any | compare the addresses (not the tokens): equal → send, else stop |
public struct SinkTarget: Hashable, Sendable, CustomStringConvertible {
    /// The sink's base URL (`--server`).
    public var server: String
    /// The sink's identity from `GET /health`, `nil` for a sink before identities.
    public var sink: String?
    /// ``fingerprint(token:)`` of the token sent, `nil` when none is sent.
    public var token: String?

    /// Creates a target.
    public init(server: String, sink: String?, token: String?) {
        self.server = server
        self.sink = sink
        self.token = token
    }

    /// The first 16 hex digits of the SHA-256 of `token` (`nil` for no token): enough to tell two tokens apart, not
    /// to recover either.
    public static func fingerprint(token: String?) -> String? {
        guard let token, !token.isEmpty else { return nil }
        return SHA256.hash(data: Data(token.utf8)).prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// What a run does, given the target the ledger last synced to.
    public enum Decision: Hashable, Sendable {
        /// Send what is pending; record this target.
        case send
        /// Stop before sending: the ledger's "synced" is about another sink (or client); the message says so.
        case stop(String)
    }

    /// Whether this run may send only the pending intervals (``Decision/send``) when the ledger last synced to
    /// `recorded` (`nil`: never), `hasSynced` telling whether any interval is marked synced.
    public func check(recorded: SinkTarget?, hasSynced: Bool) -> Decision {
        guard hasSynced, let recorded else { return .send }
        let sameSink: Bool
        if let before = recorded.sink, let now = sink {
            sameSink = before == now
        } else {
            sameSink = Self.sameAddress(recorded.server, server)
        }
        let resend = "`stepsync sync --server \(server) --resend` sends every interval to it (the sink keeps one copy "
            + "of what it already holds)"
        if !sameSink {
            let was = recorded.sink.map { "sink \($0) at \(recorded.server)" } ?? "the sink at \(recorded.server)"
            let now = sink.map { "sink \($0)" } ?? "another sink"
            let address = Self.sameAddress(recorded.server, server) ? " (the same address now serves other data)" : ""
            return .stop("this store's ledger was synced to \(was); \(server) is \(now)\(address), which holds none "
                + "of what the ledger calls synced. Nothing was sent: \(resend), or `stepsync sync --server "
                + "\(recorded.server)` carries on there")
        }
        // An older ledger (or sink) knows no identity, and no token either: the address is all it can compare.
        if recorded.sink != nil, recorded.token != token {
            return .stop("this store's ledger was synced to the sink at \(server) with "
                + "\(recorded.token == nil ? "no token" : "another token"); \(token == nil ? "no token" : "this token") "
                + "may be another client there, which holds none of it. Nothing was sent: \(resend)")
        }
        return .send
    }

    /// Whether two base URLs name one address (case of the scheme and host, and a trailing `/`, aside).
    static func sameAddress(_ a: String, _ b: String) -> Bool {
        func normal(_ url: String) -> String {
            var text = url.hasSuffix("/") ? String(url.dropLast()) : url
            if let range = text.range(of: "://") {
                let head = text[..<range.upperBound].lowercased()
                let rest = text[range.upperBound...]
                let host = rest.prefix { $0 != "/" }.lowercased()
                text = head + host + rest.drop { $0 != "/" }
            }
            return text
        }
        return normal(a) == normal(b)
    }

    public var description: String {
        "\(server) (sink \(sink ?? "unknown"), token \(token ?? "none"))"
    }
}
