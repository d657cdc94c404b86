#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP connection to 127.0.0.1 for tests that speak HTTP/1.1 by hand: partial heads, stalled bodies,
/// connections held open. Every read has a deadline, so a test never hangs on the server.
public final class RawConnection: @unchecked Sendable {
    public struct ConnectionError: Error, CustomStringConvertible {
        public let description: String
    }

    /// What a read to the end saw.
    public struct Reading: Sendable {
        /// The bytes received, as text.
        public var text: String
        /// Whether the server closed the connection (EOF or reset) before the deadline.
        public var closed: Bool
        /// The status code of the first response in `text`, if any.
        public var status: Int? {
            guard text.hasPrefix("HTTP/1.1 ") else { return nil }
            return Int(text.dropFirst(9).prefix(3))
        }
    }

    private let fd: Int32

    /// Connects to `127.0.0.1:port` (giving up after `timeout`).
    public init(port: Int, timeout: Duration = .seconds(5)) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw ConnectionError(description: "socket: errno \(errno)") }
        Self.setTimeout(fd, SO_SNDTIMEO, timeout)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            close(fd)
            throw ConnectionError(description: "connect to port \(port): errno \(error)")
        }
    }

    deinit { close(fd) }

    /// Sends `text` (all of it).
    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends `bytes` (all of them).
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { systemSend(fd, $0.baseAddress, $0.count) }
            guard sent > 0 else { throw ConnectionError(description: "send: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads until the server closes the connection or `timeout` passes.
    public func readToEnd(timeout: Duration) -> Reading {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let left = deadline - .now
            guard left > .zero else { return Reading(text: String(decoding: received, as: UTF8.self), closed: false) }
            Self.setTimeout(fd, SO_RCVTIMEO, left)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                received += buffer[0..<n]
            } else if n == 0 || errno == ECONNRESET {
                return Reading(text: String(decoding: received, as: UTF8.self), closed: true)
            } else if errno != EINTR, errno != EAGAIN, errno != EWOULDBLOCK {
                return Reading(text: String(decoding: received, as: UTF8.self), closed: true)
            }
        }
    }

    /// Reads one response with a `Content-Length` body (the connection stays open); nil status when none arrived
    /// within `timeout`.
    public func readResponse(timeout: Duration) -> (status: Int?, text: String) {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while ContinuousClock.now < deadline {
            let text = String(decoding: received, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let head = text[..<end.lowerBound].lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst(15).trimmingSpaces) } ?? 0
                if text[end.upperBound...].utf8.count >= length {
                    return (Reading(text: text, closed: false).status, text)
                }
            }
            Self.setTimeout(fd, SO_RCVTIMEO, deadline - .now)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { received += buffer[0..<n] } else if n == 0 || (errno != EINTR && errno != EAGAIN) { break }
        }
        return (nil, String(decoding: received, as: UTF8.self))
    }

    private static func setTimeout(_ fd: Int32, _ option: Int32, _ duration: Duration) {
        let micros = max(1000, duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
        var value = timeval(tv_sec: Int(micros / 1_000_000), tv_usec: Int(micros % 1_000_000))
        setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " || s.last == "\r" { s = s.dropLast() }
        return s
    }
}

/// `send(2)` without SIGPIPE (the method `send` hides the global inside the class).
private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    send(fd, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    send(fd, bytes, count, 0)
    #endif
}

extension Duration {
    /// How long a raw-socket read waits for what must come (an answer, a close): minutes, since the reads return the
    /// moment it comes and a suite of 600 tests on two cores can starve a sink for seconds. Only a failing test waits
    /// this long.
    public static let patient: Duration = .seconds(120)
}
