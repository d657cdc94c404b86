/// The stop signal of a running sync: the first ``request()`` stops it starting new intervals (those in flight
/// finish), the second cancels those in flight (they go back to `pending`).
///
/// The CLI calls ``request()`` from its SIGINT/SIGTERM handlers; code that never stops a sync passes ``never``.
public struct SyncStop: Sendable {
    let requests: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    /// Creates a stop signal nobody has requested yet.
    public init() {
        (requests, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// A stop signal that is never requested.
    public static var never: SyncStop { SyncStop() }

    /// Requests a stop: graceful the first time, cancelling the second.
    public func request() {
        continuation.yield()
    }
}

/// Whether a graceful stop was requested: set once by the engine's loop, read by the interval tasks after a
/// transient failure (to requeue rather than wait out a backoff).
actor StopFlag {
    private(set) var isSet = false

    func set() { isSet = true }
}
