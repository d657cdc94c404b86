import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import StepSyncCore
import NIOHTTP1

/// Hummingbird's HTTP/1 child channel with the sink's connection limits: a ``ConnectionGuard`` at the front of each
/// connection's pipeline and a ``RequestPartObserver`` behind the HTTP decoder, one ``ConnectionRegistry`` for the
/// server.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let limits: ConnectionLimits
    let registry: ConnectionRegistry
    let time: TimeSource
    let logger: Logger

    /// The server builder `buildSinkApplication` hands to `Application`.
    static func builder(limits: ConnectionLimits, registry: ConnectionRegistry, time: TimeSource,
                        logger: Logger) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            GuardedHTTP1Channel(http1: HTTP1Channel(responder: responder), limits: limits, registry: registry,
                                time: time, logger: logger)
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connectionGuard = ConnectionGuard(limits: limits, registry: registry, time: time, logger: self.logger)
        do {
            // Behind TLS (serve --tls-cert) right after the TLS handler, so its 408 and 503 are encrypted too.
            let operations = channel.pipeline.syncOperations
            if let tls = try? operations.handler(type: NIOSSLServerHandler.self) {
                try operations.addHandler(connectionGuard, position: .after(tls))
            } else {
                try operations.addHandler(connectionGuard, position: .first)
            }
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let bound = NIOLoopBound(connectionGuard, eventLoop: channel.eventLoop)
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(RequestPartObserver(bound.value), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
