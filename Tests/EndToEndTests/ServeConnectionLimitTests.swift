import Foundation
import StepSyncTestSupport
import Testing

/// Issue 21.4 against the real `stepsync serve`: a flood of half-open requests at 1,024 descriptors, and the
/// connection options' validation.
extension ServeProcessTests {
    @Test("issue 21.4: at 1,024 descriptors, 1,100 half-open requests held, a real GET /health is answered and the sink does not spin")
    func halfOpenFlood() async throws {
        try await withSinkDirectory { dir in
            // A header timeout of 10 minutes: only the connection cap can make room here.
            let (serve, port) = try await startServe(dir, ["--header-timeout", "600"],
                                                     prefix: ["/usr/bin/prlimit", "--nofile=1024:1024", "--"])
            defer { kill(serve.pid, SIGKILL) }
            var held: [RawConnection] = []
            for _ in 0..<1100 {
                let connection = try RawConnection(port: port)
                try connection.send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
                held.append(connection)
            }
            let real = try RawConnection(port: port)
            try real.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            // Only the cap can make room (the header timeout is 10 minutes): an answer at all proves it. Its time (3 s in
            // the issue) is not raced here: a suite on two cores can starve any process for seconds.
            let response = real.readResponse(timeout: .patient)
            #expect(response.status == 200, "\(response.text)")
            // The oldest half-open requests made room (the cap is 1,024 − 128 = 896); the newest are held.
            #expect(held[0].readToEnd(timeout: .patient).closed)
            #expect(!held[1099].readToEnd(timeout: .milliseconds(100)).closed)

            // Once the attack is idle, the sink's CPU time hardly moves: no accept loop spinning on EMFILE.
            try await Task.sleep(for: .seconds(1))
            let before = try Self.cpuSeconds(pid: serve.pid)
            try await Task.sleep(for: .seconds(2))
            let spent = try Self.cpuSeconds(pid: serve.pid) - before
            #expect(spent < 0.5, "the sink used \(spent) s of CPU in 2 idle seconds")
            #expect(!serve.stderr.contains("Too many open files"), "\(serve.stderr.suffix(2000))")

            held.removeAll()
            kill(serve.pid, SIGTERM)
            #expect(try await serve.wait(timeout: .seconds(30)) == 0)
        }
    }

    @Test("issue 21.4: 1,000 idle keep-alive connections are all closed by the sink after its idle timeout")
    func idleKeepAliveFlood() async throws {
        try await withSinkDirectory { dir in
            let (serve, port) = try await startServe(dir, ["--idle-timeout", "1"])
            defer { kill(serve.pid, SIGKILL) }
            var idle: [RawConnection] = []
            for _ in 0..<1000 {
                let connection = try RawConnection(port: port)
                try connection.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
                idle.append(connection)
            }
            var answered = 0
            for connection in idle where connection.readResponse(timeout: .patient).status == 200 { answered += 1 }
            #expect(answered == 1000)
            var closed = 0
            for connection in idle where connection.readToEnd(timeout: .patient).closed { closed += 1 }
            #expect(closed == 1000)
            idle.removeAll()
            kill(serve.pid, SIGTERM)
            #expect(try await serve.wait(timeout: .seconds(30)) == 0)
        }
    }

    @Test("issue 21.4: absurd connection options refuse to start, naming the option and its range", arguments: [
        ["--header-timeout", "0"], ["--body-timeout", "0.01"], ["--idle-timeout", "1e9"], ["--header-timeout", "nan"],
        ["--max-connections", "0"], ["--max-connections", "10000000"],
    ])
    func absurdConnectionOptions(_ option: [String]) async throws {
        try await withSinkDirectory { dir in
            let (status, serve) = try await StepSyncProcess.run(
                ["serve", "--data", dir + "/steps.jsonl", "--port", "0"] + option)
            #expect(status != 0)
            #expect(serve.stderr.contains("\(option[0]) must be"), "\(serve.stderr)")
            #expect(!serve.stdout.contains("listening"))
        }
    }

    /// User plus system CPU seconds of process `pid` so far (`/proc/PID/stat`, fields 14 and 15).
    static func cpuSeconds(pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { throw SinkHarness.HarnessError(message: "bad stat: \(stat)") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw SinkHarness.HarnessError(message: "bad stat: \(stat)")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
