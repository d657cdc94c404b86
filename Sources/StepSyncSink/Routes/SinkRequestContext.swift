import Hummingbird
import Synchronization

/// The sink's request context: Hummingbird's core storage plus the client the token named, which the dispatcher
/// sets and the request log reads once the answer is made (a shared box, as Hummingbird's `EndpointPath` is, since a
/// context is handed down the middleware chain by value).
struct SinkRequestContext: RequestContext {
    /// Hummingbird's own values (logger, endpoint path, parameters).
    var coreContext: CoreRequestContextStorage
    /// The authenticated client, once there is one (also when the request then fails).
    let client: ClientSlot

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        client = ClientSlot()
    }

    /// Holds the client of one request.
    final class ClientSlot: Sendable {
        private let value = Mutex<ClientIdentity?>(nil)

        /// The client, or `nil` when none was authenticated.
        var identity: ClientIdentity? {
            get { value.withLock { $0 } }
            set { value.withLock { $0 = newValue } }
        }
    }
}
