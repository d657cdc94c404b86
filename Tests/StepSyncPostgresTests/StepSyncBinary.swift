import Foundation
import StepSyncTestSupport

/// The built `stepsync` binary as a real process (`clients`, `serve --database`), output in files.
final class StepSyncBinary: Sendable {
    /// `.build/debug/stepsync` of this package (found from this file's path), or `STEPSYNC_BINARY`.
    static var path: String {
        if let path = ProcessInfo.processInfo.environment["STEPSYNC_BINARY"] { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/stepsync").path
    }

    let process: ChildProcess
    let stdoutPath: String
    let stderrPath: String

    /// Starts `stepsync <arguments>`, with `environment` added to this process's.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let base = TemporaryDirectory.uniquePath("stepsync-pg-proc")
        stdoutPath = base + ".out"
        stderrPath = base + ".err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process = try ChildProcess(Self.path, arguments, environment: environment, stdout: stdoutPath,
                                   stderr: stderrPath)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: stdoutPath)
        try? FileManager.default.removeItem(atPath: stderrPath)
    }

    var pid: Int32 { process.processIdentifier }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits until the process exits (polling, without blocking a thread); returns its status.
    func wait(timeout: Duration = .seconds(120)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                kill(pid, SIGKILL)
                throw PostgresHarness.Failure("stepsync \(process.argv.dropFirst().first ?? "") did not exit in \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return process.terminationStatus
    }

    /// Runs `stepsync <arguments>` to its end.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws
        -> (status: Int32, stdout: String, stderr: String)
    {
        let process = try StepSyncBinary(arguments, environment: environment)
        let status = try await process.wait()
        return (status, process.stdout, process.stderr)
    }

    /// Starts `stepsync serve --database url --port port` (or, with `urlFromEnvironment`, the URL in
    /// `STEPSYNC_DATABASE_URL` and no `--database`) and waits until it listens.
    static func serve(url: String, port: Int, urlFromEnvironment: Bool = false,
                      options: [String] = []) async throws -> StepSyncBinary {
        let process = urlFromEnvironment
            ? try StepSyncBinary(["serve", "--port", "\(port)"] + options, environment: ["STEPSYNC_DATABASE_URL": url])
            : try StepSyncBinary(["serve", "--port", "\(port)", "--database", url] + options)
        let deadline = ContinuousClock.now + .seconds(120)
        while !process.stdout.contains("listening on http://127.0.0.1:\(port)") {
            guard process.process.isRunning, ContinuousClock.now < deadline else {
                throw PostgresHarness.Failure("serve did not start: \(process.stderr.suffix(800))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        return process
    }
}
