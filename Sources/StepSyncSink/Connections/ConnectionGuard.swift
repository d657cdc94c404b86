import Logging
import NIOCore
import StepSyncCore

/// The first handler of every connection's pipeline (next to the socket): admits the connection to the
/// ``ConnectionRegistry`` (or answers 503 and closes), sees every byte read, and runs the
/// ``ConnectionDeadlineMachine``'s deadline with one scheduled task, answering 408 or closing when it passes.
/// ``RequestPartObserver`` (behind the HTTP decoder) tells it about request heads and ends and response heads and
/// ends. Its own answers are written as raw bytes, below the HTTP encoder, and always followed by a close.
final class ConnectionGuard: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum Admission {
        case pending
        case admitted(UInt64)
        case refused
        case closed
    }

    private let registry: ConnectionRegistry
    private let time: TimeSource
    private let logger: Logger
    private var machine: ConnectionDeadlineMachine
    private var admission = Admission.pending
    private var wasEvictable = true
    private var context: ChannelHandlerContext?
    private var timer: Scheduled<Void>?
    private var timerDeadline: ContinuousClock.Instant?

    /// A guard for one connection: `limits` its deadlines, read on `time`'s monotonic clock.
    init(limits: ConnectionLimits, registry: ConnectionRegistry, time: TimeSource, logger: Logger) {
        self.registry = registry
        self.time = time
        self.logger = logger
        self.machine = ConnectionDeadlineMachine(limits: limits, openedAt: time.monotonicNow())
    }

    // MARK: - Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { admit(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        if case .admitted(let id) = admission { registry.remove(id) }
        admission = .closed
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection's bytes never reach the HTTP handlers.
        guard case .admitted = admission else { return }
        machine.bytesRead(at: time.monotonicNow())
        update()
        context.fireChannelRead(data)
    }

    // MARK: - From RequestPartObserver

    func headRead() { machine.headRead(at: time.monotonicNow()); update() }
    func requestEnded() { machine.requestEnded(at: time.monotonicNow()); update() }
    func responseStarted() { machine.responseStarted() }
    func responseEnded() { machine.responseEnded(at: time.monotonicNow()); update() }

    // MARK: - Admission and deadlines

    private func admit(_ context: ChannelHandlerContext) {
        guard case .pending = admission else { return }
        switch registry.admit(context.channel) {
        case .admitted(let id, let evicted):
            admission = .admitted(id)
            if let evicted {
                logger.debug("Connection cap reached: closing the connection waiting longest without a request",
                             metadata: ["sink.connections.cap": "\(registry.capacity)"])
                evicted.close(promise: nil)
            }
            update()
        case .refused:
            admission = .refused
            if let refusals = registry.refusalsToReport(now: time.monotonicNow()) {
                logger.warning("Connection cap reached with every connection busy: answering 503", metadata: [
                    "sink.connections.cap": "\(registry.capacity)", "sink.connections.refused": "\(refusals)",
                ])
            }
            answerAndClose(context, Self.response(
                status: "503 Service Unavailable", error: "busy",
                message: "the sink holds its maximum of \(registry.capacity) connections, all busy with requests; retry",
                retryAfter: 1))
        }
    }

    /// Tells the registry whether the connection is evictable and moves the timer earlier when the deadline did
    /// (a later deadline is found when the timer fires).
    private func update() {
        guard case .admitted(let id) = admission else { return }
        if machine.isEvictable != wasEvictable {
            wasEvictable = machine.isEvictable
            registry.setEvictable(id, wasEvictable)
        }
        guard let deadline = machine.deadline else { return }
        if let timerDeadline, timerDeadline <= deadline { return }
        schedule(at: deadline)
    }

    private func schedule(at deadline: ContinuousClock.Instant) {
        guard let context else { return }
        cancelTimer()
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(deadline - time.monotonicNow())) { [self] in
            timerFired()
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    private func timerFired() {
        timer = nil
        timerDeadline = nil
        guard case .admitted = admission, let context else { return }
        let now = time.monotonicNow()
        switch machine.expiry(at: now) {
        case nil:
            if let deadline = machine.deadline { schedule(at: deadline) }
        case .close:
            logger.debug("Closing a connection past its deadline", metadata: ["sink.connection.phase": "\(machine.phase)"])
            context.close(promise: nil)
        case .requestTimeout:
            let (part, limit) = machine.phase == .readingBody
                ? ("the request body stalled", machine.limits.bodyTimeout)
                : ("the request head did not arrive", machine.limits.headerTimeout)
            logger.debug("Answering 408 to a stalled request", metadata: ["sink.connection.phase": "\(machine.phase)"])
            answerAndClose(context, Self.response(
                status: "408 Request Timeout", error: "request_timeout",
                message: "\(part) within \(Self.seconds(limit)) s", retryAfter: nil))
        }
    }

    private func answerAndClose(_ context: ChannelHandlerContext, _ bytes: ByteBuffer) {
        cancelTimer()
        context.writeAndFlush(NIOAny(bytes), promise: nil)
        context.close(promise: nil)
    }

    // MARK: - Raw answers

    static func response(status: String, error: String, message: String, retryAfter: Int?) -> ByteBuffer {
        let body = #"{"error":"\#(error)","message":"\#(message)"}"#
        var head = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
        if let retryAfter { head += "Retry-After: \(retryAfter)\r\n" }
        head += "Connection: close\r\n\r\n"
        return ByteBuffer(string: head + body)
    }

    static func seconds(_ duration: Duration) -> String {
        let seconds = duration.inSeconds
        return seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
