import NIOCore
import NIOHTTP1

/// Sits behind the HTTP/1 decoder and tells the connection's ``ConnectionGuard`` when a request head and end
/// arrive and when a response head and end leave; passes everything on unchanged.
final class RequestPartObserver: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let connectionGuard: ConnectionGuard

    init(_ connectionGuard: ConnectionGuard) {
        self.connectionGuard = connectionGuard
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: connectionGuard.headRead()
        case .body: break  // its bytes were seen by the guard
        case .end: connectionGuard.requestEnded()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200: connectionGuard.responseStarted()
        case .head, .body: break
        case .end: connectionGuard.responseEnded()
        }
        context.write(data, promise: promise)
    }
}
