#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How long a connection may take over each part of a request, and how many connections the sink holds at once
/// (`serve --header-timeout`, `--body-timeout`, `--idle-timeout`, `--max-connections`).
///
/// | limit | default | clock starts | at the deadline |
/// |---|---|---|---|
/// | ``headerTimeout`` | 10 s | accept, or the first byte after a response | 408 and close (close if nothing was sent) |
/// | ``bodyTimeout`` | 30 s | the last byte of the body received | 408 and close (close once answered) |
/// | ``idleTimeout`` | 75 s | the end of the last response (keep-alive) | close |
/// | ``maxConnections`` | 1,000 | — | the oldest connection without a request head is closed; none: 503 |
///
/// The cap is also held under the descriptor limit: ``connectionCap(descriptorLimit:)``. The idle timeout is longer
/// than AsyncHTTPClient's 60 s pool idle timeout (the sync engine's client), so the client closes an idle connection
/// first and never sends a request on one the sink is closing.
public struct ConnectionLimits: Sendable, Equatable {
    /// The longest wait for a complete request head.
    public var headerTimeout: Duration
    /// The longest a request body may stall (no byte received).
    public var bodyTimeout: Duration
    /// The longest a kept-alive connection may wait for its next request.
    public var idleTimeout: Duration
    /// The most connections held at once (lowered to fit the descriptor limit).
    public var maxConnections: Int

    /// The range `serve` accepts for every timeout, in seconds.
    public static let timeoutSecondsRange: ClosedRange<Double> = 0.1...3600
    /// The range `serve` accepts for ``maxConnections``.
    public static let maxConnectionsRange: ClosedRange<Int> = 1...100_000

    /// Creates limits; every default is the `stepsync serve` default.
    public init(
        headerTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(30),
        idleTimeout: Duration = .seconds(75),
        maxConnections: Int = 1000
    ) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }

    /// The descriptors kept back from connections for the data files, the listening socket, the event loops and
    /// logging: an eighth of the limit, at least 64.
    public static func descriptorReserve(descriptorLimit: Int) -> Int { max(64, descriptorLimit / 8) }

    /// ``maxConnections``, lowered so connections never use more than `descriptorLimit` minus
    /// ``descriptorReserve(descriptorLimit:)`` (at least 1): at 1,024 descriptors, 896. An accept never fails with
    /// EMFILE, so the accept loop never spins on it.
    public func connectionCap(descriptorLimit: Int?) -> Int {
        guard let descriptorLimit else { return maxConnections }
        return max(1, min(maxConnections, descriptorLimit - Self.descriptorReserve(descriptorLimit: descriptorLimit)))
    }

    /// This process's soft `RLIMIT_NOFILE`, or nil when unlimited or unknown.
    public static func currentDescriptorLimit() -> Int? {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        // RLIM_INFINITY is all ones: beyond Int.max.
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(Int.max) else {
            return nil
        }
        return Int(limit.rlim_cur)
    }
}
