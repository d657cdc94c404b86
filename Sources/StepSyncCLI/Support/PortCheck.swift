#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds out, before the sink opens its files, whether `serve` could listen on a host and port, so that a port in
/// use is said in words (naming the port and `--port`) instead of NIO's `bind(descriptor:…)` dump.
enum PortCheck {
    /// Why nothing can listen on `host`:`port` (the system's reason, e.g. "Address already in use"), `nil` when a
    /// socket bound there (and was closed again at once) or the check cannot tell. Binds as NIO does, with
    /// `SO_REUSEADDR`, so a port in TIME_WAIT is not reported.
    static func problem(host: String, port: Int) -> (reason: String, inUse: Bool)? {
        guard port > 0 else { return nil }
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 else { return nil }
        let code = errno
        return (String(cString: strerror(code)), code == EADDRINUSE)
    }

    /// The message for people when `serve` cannot listen on `host`:`port`.
    static func message(host: String, port: Int, reason: String, inUse: Bool) -> String {
        if inUse {
            return "port \(port) on \(host) is already in use (another `stepsync serve`, or another program): choose another with --port N, or --port 0 for a free one"
        }
        return "cannot listen on \(host) port \(port): \(reason) (check --host and --port)"
    }
}
