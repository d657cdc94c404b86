import Foundation
import StepSyncCore
@testable import StepSyncSink
import StepSyncTestSupport
import Synchronization
import Testing

/// Issue 21.4: header, body and idle timeouts and the connection cap, against the real sink on 127.0.0.1 port 0
/// with raw sockets. Timeouts are set small (0.5 s); assertions are on outcomes (408, EOF), with generous deadlines.
@Suite("Sink connection limits", .serialized)
struct SinkConnectionLimitTests {
    static let short = Duration.milliseconds(500)

    func withLimitedSink<T: Sendable>(
        _ limits: ConnectionLimits, observer: ConnectionCountsObserver? = nil,
        _ body: @Sendable (SinkTestClient, Int) async throws -> T
    ) async throws -> T {
        try await withTemporaryDirectory { dir in
            try await withSink(directory: dir, configure: {
                $0.connectionLimits = limits
                $0.onConnectionsChange = observer?.callback
            }) { client, _ in
                try await body(client, client.port)
            }
        }
    }

    static let healthRequest = "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"

    @Test("an idle keep-alive connection is closed after the idle timeout")
    func idleKeepAliveClosed() async throws {
        try await withLimitedSink(ConnectionLimits(idleTimeout: Self.short)) { _, port in
            let connection = try RawConnection(port: port)
            try connection.send(Self.healthRequest)
            #expect(connection.readResponse(timeout: .patient).status == 200)
            let after = connection.readToEnd(timeout: .patient)
            #expect(after.closed)
            #expect(after.text.isEmpty)
        }
    }

    @Test("a connection that sends nothing is closed after the header timeout")
    func silentConnectionClosed() async throws {
        try await withLimitedSink(ConnectionLimits(headerTimeout: Self.short)) { _, port in
            let reading = try RawConnection(port: port).readToEnd(timeout: .patient)
            #expect(reading.closed)
            #expect(reading.text.isEmpty)
        }
    }

    @Test("a stalled request head gets 408 and is closed after the header timeout")
    func stalledHeadClosed() async throws {
        try await withLimitedSink(ConnectionLimits(headerTimeout: Self.short)) { _, port in
            let connection = try RawConnection(port: port)
            try connection.send("GET /health HTTP/1.1\r\nHost: loc")
            let reading = connection.readToEnd(timeout: .patient)
            #expect(reading.closed)
            #expect(reading.status == 408, "\(reading.text)")
            #expect(reading.text.contains("request head"))
        }
    }

    @Test("a request head trickled in byte by byte (slowloris) is cut at the header timeout: bytes do not extend it")
    func trickledHeadCut() async throws {
        try await withLimitedSink(ConnectionLimits(headerTimeout: Self.short)) { _, port in
            let connection = try RawConnection(port: port)
            var closedEarly = false
            for byte in "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: abcdefghijklmnopqrstuvwxyz".utf8 {
                do { try connection.send([byte]) } catch { closedEarly = true; break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let reading = connection.readToEnd(timeout: .patient)
            #expect(closedEarly || reading.closed)
            #expect(reading.status == 408 || reading.text.isEmpty, "\(reading.text)")
        }
    }

    @Test("a stalled request body gets 408 and is closed after the body timeout; nothing is stored")
    func stalledBodyClosed() async throws {
        try await withLimitedSink(ConnectionLimits(bodyTimeout: Self.short)) { client, port in
            let body = WireEncoder.encodeRequest(makeSamples(3))
            let connection = try RawConnection(port: port)
            try connection.send("POST /steps HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                + "Content-Length: \(body.count)\r\n\r\n")
            try connection.send(Array(body.prefix(10)))
            let reading = connection.readToEnd(timeout: .patient)
            #expect(reading.closed)
            #expect(reading.status == 408, "\(reading.text)")
            #expect(reading.text.contains("body stalled"))
            #expect(try await client.send(.GET, "/steps").json["storedCount"] as? Int == 0)
        }
    }

    @Test("a body that trickles in, never stalling a whole body timeout, is stored; so is a normal POST")
    func trickledBodyStored() async throws {
        // The body takes longer than one body timeout in all (12 × 300 ms > 3 s), while no gap comes near it: a gap
        // ten times the sleep would be needed to cut it, so a loaded machine does not turn this into a race.
        let limits = ConnectionLimits(headerTimeout: .seconds(3), bodyTimeout: .seconds(3), idleTimeout: .seconds(3))
        try await withLimitedSink(limits) { client, port in
            #expect(try await client.post(makeSamples(5)).status == 200)
            let body = WireEncoder.encodeRequest(makeSamples(4, first: 100))
            let connection = try RawConnection(port: port)
            try connection.send("POST /steps HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                + "Content-Length: \(body.count)\r\n\r\n")
            let size = (body.count + 11) / 12
            let pieces = stride(from: 0, to: body.count, by: size).map { Array(body[$0..<min($0 + size, body.count)]) }
            #expect(pieces.count == 12)
            for piece in pieces {
                try await Task.sleep(for: .milliseconds(300))
                try connection.send(piece)
            }
            let response = connection.readResponse(timeout: .patient)
            #expect(response.status == 200, "\(response.text)")
            #expect(try await client.send(.GET, "/steps").json["storedCount"] as? Int == 9)
        }
    }

    @Test("at the cap, a new connection closes the oldest half-open one and is served")
    func capEvictsHalfOpen() async throws {
        let observer = ConnectionCountsObserver()
        let limits = ConnectionLimits(headerTimeout: .seconds(600), maxConnections: 4)
        try await withLimitedSink(limits, observer: observer) { client, port in
            var held: [RawConnection] = []
            for k in 0..<6 {
                let connection = try RawConnection(port: port)
                try connection.send("GET /health HTTP/1.1\r\nHost: loc")
                held.append(connection)
                if k < 4 {
                    // Admitted in this order: each is registered before the next connects.
                    try await observer.waitFor { $0.held == k + 1 }
                } else {
                    // At the cap: admitting this one closed the oldest (an event seen on that socket).
                    #expect(held[k - 4].readToEnd(timeout: .patient).closed, "connection \(k - 4)")
                }
            }
            let real = try RawConnection(port: port)
            try real.send(Self.healthRequest)
            #expect(real.readResponse(timeout: .patient).status == 200)
            // The three oldest made room for the two later ones and the real request.
            for connection in held.prefix(3) { #expect(connection.readToEnd(timeout: .patient).closed) }
            for connection in held.suffix(3) { #expect(!connection.readToEnd(timeout: .milliseconds(200)).closed) }
        }
    }

    @Test("at the cap with every connection busy in a request, a newcomer is answered 503 and closed")
    func capAllBusyRefuses() async throws {
        let observer = ConnectionCountsObserver()
        let limits = ConnectionLimits(bodyTimeout: .seconds(600), maxConnections: 2)
        try await withLimitedSink(limits, observer: observer) { client, port in
            var busy: [RawConnection] = []
            for _ in 0..<2 {
                let connection = try RawConnection(port: port)
                try connection.send("POST /steps HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                                    + "Content-Length: 1000\r\n\r\n{\"samples\":[")
                busy.append(connection)
            }
            try await observer.waitFor { $0.held == 2 && $0.busy == 2 }
            let newcomer = try RawConnection(port: port).readToEnd(timeout: .patient)
            #expect(newcomer.closed)
            #expect(newcomer.status == 503, "\(newcomer.text)")
            #expect(newcomer.text.contains("Retry-After: 1"))
            busy.removeAll()  // closes them: room again
            try await observer.waitFor { $0.held == 0 }
            let later = try RawConnection(port: port)
            try later.send(Self.healthRequest)
            #expect(later.readResponse(timeout: .patient).status == 200)
        }
    }
}

@Suite("Connection deadlines and cap, as values")
struct ConnectionDeadlineMachineTests {
    let limits = ConnectionLimits(headerTimeout: .seconds(10), bodyTimeout: .seconds(30), idleTimeout: .seconds(75))
    let t0 = ContinuousClock.now

    @Test("a fresh connection has the header timeout from accept, also after its first byte")
    func fresh() {
        var machine = ConnectionDeadlineMachine(limits: limits, openedAt: t0)
        #expect(machine.deadline == t0 + .seconds(10))
        #expect(machine.isEvictable)
        #expect(machine.expiry(at: t0 + .seconds(9)) == nil)
        #expect(machine.expiry(at: t0 + .seconds(10)) == .close)
        machine.bytesRead(at: t0 + .seconds(5))
        #expect(machine.deadline == t0 + .seconds(10))
        #expect(machine.expiry(at: t0 + .seconds(10)) == .requestTimeout)
    }

    @Test("a body's clock restarts with every byte; a stalled body gets 408 unless already answered")
    func body() {
        var machine = ConnectionDeadlineMachine(limits: limits, openedAt: t0)
        machine.bytesRead(at: t0)
        machine.headRead(at: t0 + .seconds(1))
        #expect(!machine.isEvictable)
        machine.bytesRead(at: t0 + .seconds(20))
        #expect(machine.deadline == t0 + .seconds(50))
        #expect(machine.expiry(at: t0 + .seconds(50)) == .requestTimeout)
        machine.responseStarted()  // answered early (a 413, a 401)
        machine.responseEnded(at: t0 + .seconds(21))
        #expect(machine.expiry(at: t0 + .seconds(51)) == .close)
    }

    @Test("while answering there is no deadline; after the answer the idle timeout, then a new head's own")
    func keepAlive() {
        var machine = ConnectionDeadlineMachine(limits: limits, openedAt: t0)
        machine.bytesRead(at: t0)
        machine.headRead(at: t0)
        machine.requestEnded(at: t0)
        #expect(machine.deadline == nil)
        #expect(!machine.isEvictable)
        machine.responseStarted()
        machine.responseEnded(at: t0 + .seconds(100))
        #expect(machine.phase == .idle)
        #expect(machine.isEvictable)
        #expect(machine.deadline == t0 + .seconds(175))
        machine.bytesRead(at: t0 + .seconds(110))
        #expect(machine.phase == .readingHead)
        #expect(machine.deadline == t0 + .seconds(120))
    }

    @Test("the cap leaves room for files under the descriptor limit", arguments: [
        (1000, 1024 as Int?, 896), (1000, nil, 1000), (1000, 20000, 1000), (1000, 256, 192), (1000, 50, 1),
        (10, 1024, 10),
    ])
    func cap(maxConnections: Int, descriptorLimit: Int?, expected: Int) {
        #expect(ConnectionLimits(maxConnections: maxConnections).connectionCap(descriptorLimit: descriptorLimit)
                == expected)
    }
}

/// The connection counts a sink reports (``SinkConfiguration/onConnectionsChange``), for tests that wait on the sink's
/// own events rather than on the clock.
final class ConnectionCountsObserver: Sendable {
    private let counts = Mutex(ConnectionCounts(held: 0, busy: 0))

    /// The callback to put in the configuration.
    var callback: @Sendable (ConnectionCounts) -> Void { { new in self.counts.withLock { $0 = new } } }

    /// Returns once `condition` holds of the reported counts (polled every 5 ms), failing after 60 s.
    func waitFor(_ condition: @Sendable (ConnectionCounts) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(counts.withLock { $0 }) {
            guard ContinuousClock.now < deadline else { throw TestFailure("counts stuck at \(counts.withLock { $0 })") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
