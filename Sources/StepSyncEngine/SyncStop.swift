import Synchronization

/// The stop signal of a running sync: the first ``request()`` stops it starting new intervals (those in flight
/// finish), the second cancels those in flight (they go back to `pending`).
///
/// The CLI calls ``request()`` from its SIGINT/SIGTERM handlers; code that never stops a sync passes ``never``.
/// The engine reads ``requestCount`` before starting each interval (so a stop takes effect at once) and is woken by
/// ``requests`` to cancel promptly on the second request.
public struct SyncStop: Sendable {
    private final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    private let count = Count()
    let requests: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    /// Creates a stop signal nobody has requested yet.
    public init() {
        (requests, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// A stop signal that is never requested.
    public static var never: SyncStop { SyncStop() }

    /// Requests a stop: graceful the first time, cancelling the second. Safe from any thread or signal handler
    /// queue.
    public func request() {
        count.value.add(1, ordering: .sequentiallyConsistent)
        continuation.yield()
    }

    /// How many stops were requested so far (0: none; 1: graceful; 2 or more: cancel).
    public var requestCount: Int {
        count.value.load(ordering: .sequentiallyConsistent)
    }
}
