import Foundation

/// The built `stepsync` binary, run as a real process with its output in files: the tests' one binary runner (the
/// end-to-end and the PostgreSQL suites).
public final class StepSyncProcess: Sendable {
    /// `.build/debug/stepsync` of this package (found from this file's path), or `STEPSYNC_BINARY`.
    public static var binaryPath: String {
        if let path = ProcessInfo.processInfo.environment["STEPSYNC_BINARY"] { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/stepsync").path
    }

    public let process: ChildProcess
    public let stdoutPath: String
    public let stderrPath: String
    /// Kill the process (SIGKILL) when this value is released while it still runs.
    public let killOnRelease: Bool

    /// Starts `stepsync <arguments>`, or `executable` with `arguments` when given (e.g. `prlimit … -- stepsync …`,
    /// where the word `serve`/`sync` that follows `--` is replaced by the binary and itself).
    /// `environment` is added to (and overrides) this process's environment. `killOnRelease` ends a process still
    /// running when this value goes (a `serve` a test forgot, or left by a failed expectation).
    public init(_ arguments: [String], executable: String? = nil, environment: [String: String] = [:],
                killOnRelease: Bool = false) throws {
        self.killOnRelease = killOnRelease
        let base = (ProcessOutputDirectory.path as NSString).appendingPathComponent(UUID().uuidString)
        stdoutPath = base + ".out"
        stderrPath = base + ".err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        var program = Self.binaryPath
        var arguments = arguments
        if let executable {
            program = executable
            if arguments.first == executable { arguments.removeFirst() }
            if let dashes = arguments.firstIndex(of: "--") { arguments.insert(Self.binaryPath, at: dashes + 1) }
        }
        process = try ChildProcess(program, arguments, environment: environment, stdout: stdoutPath,
                                   stderr: stderrPath)
    }

    deinit {
        if killOnRelease, process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    public var pid: Int32 { process.processIdentifier }

    /// Waits (without blocking a thread) until the process exits; returns its status.
    public func wait(timeout: Duration = .seconds(240)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                throw SinkHarness.HarnessError(message: "stepsync did not exit in \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationStatus
    }

    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// stdout parsed as the one JSON object of `--json`.
    public func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
            throw SinkHarness.HarnessError(message: "stdout is not a JSON object: \(stdout)\nstderr: \(stderr)")
        }
        return object
    }

    /// Runs `stepsync <arguments>` to the end.
    public static func run(_ arguments: [String], executable: String? = nil, environment: [String: String] = [:]) async throws
        -> (status: Int32, process: StepSyncProcess)
    {
        let process = try StepSyncProcess(arguments, executable: executable, environment: environment)
        return (try await process.wait(), process)
    }

    /// Waits until the process (a `serve`) prints `listening on <scheme>://HOST:PORT` and returns the port; kills it
    /// and fails when it exits first or after `timeout`.
    public func listeningPort(scheme: String = "http", timeout: Duration = .seconds(240)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix("listening on \(scheme)://") }),
               let bound = line.split(separator: ":").last.flatMap({ Int($0) })
            {
                return bound
            }
            guard process.isRunning else {
                throw SinkHarness.HarnessError(message: "serve exited \(process.terminationStatus): \(stderr)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(pid, SIGKILL)
        throw SinkHarness.HarnessError(message: "serve did not listen: \(stderr)")
    }

    /// Runs `stepsync <arguments>` to its end and returns its status and output.
    public static func output(_ arguments: [String], environment: [String: String] = [:]) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let process = try StepSyncProcess(arguments, environment: environment, killOnRelease: true)
        let status = try await process.wait()
        return (status, process.stdout, process.stderr)
    }

    /// Starts `stepsync serve --database url --port port` (or, with `urlFromEnvironment`, the URL in
    /// `STEPSYNC_DATABASE_URL` and no `--database`) and waits until it listens; killed when released.
    public static func serve(url: String, port: Int, urlFromEnvironment: Bool = false,
                             options: [String] = []) async throws -> StepSyncProcess {
        let process = urlFromEnvironment
            ? try StepSyncProcess(["serve", "--port", "\(port)"] + options, environment: ["STEPSYNC_DATABASE_URL": url],
                                  killOnRelease: true)
            : try StepSyncProcess(["serve", "--port", "\(port)", "--database", url] + options, killOnRelease: true)
        let deadline = ContinuousClock.now + .seconds(120)
        while !process.stdout.contains("listening on http://127.0.0.1:\(port)") {
            guard process.process.isRunning, ContinuousClock.now < deadline else {
                throw SinkHarness.HarnessError(message: "serve did not start: \(process.stderr.suffix(800))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return process
    }
}

/// One directory for the output files of every process a test run starts, removed when the run exits (15,000 files
/// had piled up in the temporary directory when each file was left there).
private enum ProcessOutputDirectory {
    static let path: String = {
        let path = TemporaryDirectory.uniquePath("stepsync-proc")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: ProcessOutputDirectory.path) }
        return path
    }()
}
