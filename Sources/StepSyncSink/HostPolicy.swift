/// Which hosts a sink answers: the defence against DNS rebinding and the rule for public binds.
///
/// A web page can make a browser send requests to `127.0.0.1` under a name the attacker controls (DNS rebinding);
/// the browser then sends that name as `Host`. A sink bound to loopback answers only loopback names and addresses,
/// so such requests get 421. A sink bound to any other address is reachable by others and must require a token.
enum HostPolicy {
    /// Whether `host` (a bind address) is loopback: `localhost`, `127.0.0.0/8`, `::1`.
    static func isLoopbackAddress(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        if name.hasPrefix("::ffff:") { name = String(name.dropFirst("::ffff:".count)) }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }

    /// Whether a request's authority (`Host` header: `name[:port]`, `[v6][:port]`) names a loopback host.
    static func isLoopbackAuthority(_ authority: String) -> Bool {
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            host = host[...close]
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        return isLoopbackAddress(String(host))
    }
}
