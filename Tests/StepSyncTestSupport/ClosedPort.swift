import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port that refuses every connection and stays that way while held: a socket bound to it that never
/// listens. A connect gets ECONNREFUSED at once, and no other listener — another test's sink in the same process —
/// can bind the port while it is held (the socket sets no `SO_REUSEADDR`), which a port merely found free and closed
/// again cannot promise: on a busy test run the kernel hands it to the next `bind(0)`.
public final class ClosedPort: Sendable {
    /// The port number.
    public let port: Int
    private let descriptor: Mutex<Int32?>

    /// Binds a fresh socket to an ephemeral loopback port, without listening; or, `silent`, listening without ever
    /// accepting: the kernel completes each connect, and nothing is ever read or answered (a server that hangs).
    public init(silent: Bool = false) throws {
        let (fd, port) = try Self.bindEphemeral()
        if silent, listen(fd, 64) != 0 {
            let code = errno
            close(fd)
            throw PostgresHarness.Failure("listen() failed: errno \(code)")
        }
        self.port = port
        self.descriptor = Mutex(fd)
    }

    /// Lets the port go, so a test can bring a server up on it (idempotent).
    public func release() {
        descriptor.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }

    deinit { release() }

    /// Runs `body` with a held closed port, released when `body` returns or throws.
    public static func with<T>(_ body: (Int) async throws -> T) async throws -> T {
        let held = try ClosedPort()
        defer { held.release() }
        return try await body(held.port)
    }

    /// A bound, non-listening loopback socket and its port; the caller closes the socket.
    static func bindEphemeral() throws -> (Int32, Int) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw PostgresHarness.Failure("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw PostgresHarness.Failure("bind() failed: errno \(code)")
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw PostgresHarness.Failure("getsockname() failed: errno \(code)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
