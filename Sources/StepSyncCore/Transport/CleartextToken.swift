import Foundation

/// Whether a client is about to send its bearer token in clear to a host that is not this machine, and the warning
/// `sync` and `reset --remote` print (once, on stderr, before the first request) when it is.
///
/// A token over `http://` to `127.0.0.0/8`, `::1` or `localhost` never leaves the machine; to any other host it
/// crosses the network readable by anyone on the path, who can then read and delete the client's samples. `https://`
/// and a run without a token say nothing.
public enum CleartextToken {
    /// The warning for sending `token` to `server` (a base URL), or `nil` when there is nothing to warn about.
    ///
    /// `http://sink.example:8000` with a token → `warning: sending the bearer token to http://sink.example:8000 in
    /// clear (plain HTTP to a host that is not this machine): anyone on the path can read it and use it — give the
    /// sink TLS (stepsync serve --tls-cert/--tls-key, or a TLS proxy) and an https:// --server`.
    public static func warning(server: String, token: String?) -> String? {
        guard let token, !token.isEmpty,
              let components = URLComponents(string: server), components.scheme?.lowercased() == "http",
              let host = components.host, !isLoopback(host: host)
        else { return nil }
        return "warning: sending the bearer token to \(server) in clear (plain HTTP to a host that is not this "
            + "machine): anyone on the path can read it and use it — give the sink TLS (stepsync serve "
            + "--tls-cert/--tls-key, or a TLS proxy) and an https:// --server"
    }

    /// Whether `host` (a URL's host: a name, a dotted IPv4 address, an IPv6 address with or without brackets) is
    /// this machine's loopback: `localhost` (any case, a final dot allowed), `127.0.0.0/8`, `::1`.
    public static func isLoopback(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" { return true }
        if let octets = ipv4(name) { return octets[0] == 127 }
        if let groups = ipv6(name) { return groups == [0, 0, 0, 0, 0, 0, 0, 1] }
        return false
    }

    /// The four octets of a dotted-quad address (`127.0.0.1`), else `nil`.
    public static func ipv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = UInt8(part) else { return nil }
            octets.append(value)
        }
        return octets
    }

    /// The eight groups of an IPv6 address (`::1`, `0:0:0:0:0:0:0:1`; an IPv4 tail counts as two groups), else `nil`.
    static func ipv6(_ text: String) -> [UInt16]? {
        guard text.contains(":"), text.count <= 45 else { return nil }
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var out: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let octets = ipv4(String(piece)) {
                    out.append(UInt16(octets[0]) << 8 | UInt16(octets[1]))
                    out.append(UInt16(octets[2]) << 8 | UInt16(octets[3]))
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                out.append(value)
            }
            return out
        }
        let halves = text.components(separatedBy: "::")
        switch halves.count {
        case 1:
            guard let all = groups(Substring(text)), all.count == 8 else { return nil }
            return all
        case 2:
            guard let head = groups(Substring(halves[0])), let tail = groups(Substring(halves[1])),
                  head.count + tail.count <= 7 else { return nil }
            return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        default:
            return nil
        }
    }
}
