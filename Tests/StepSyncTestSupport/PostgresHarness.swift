import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real PostgreSQL server for tests and benchmarks: `initdb` into a temp directory, `pg_ctl start` on a free
/// loopback port, `createdb` per test, `pg_ctl stop -m fast` at the end.
///
/// `initdb` refuses to run as root, so as root every server command runs as the `postgres` user
/// (`runuser -u postgres --`) in a directory under `/tmp` it owns (a directory under a 0700 home would not be
/// traversable). Each server also starts a small watchdog shell that stops it (`-m fast`) and removes its directory
/// once the test process is gone, so a crashed or killed test run leaves no server behind; the normal paths stop it
/// themselves.
public final class PostgresServer: Sendable {
    /// The server's directory (data in `data/`, log in `log`, socket in the directory itself).
    public let directory: String
    /// The loopback port; the same across ``stop()`` and ``start()``.
    public let port: Int
    /// The superuser `initdb` created (trust authentication on loopback).
    public let user = "stepsync"
    private let binaries: String
    private let watchdog: Int32

    private init(directory: String, port: Int, binaries: String, watchdog: Int32) {
        self.directory = directory
        self.port = port
        self.binaries = binaries
        self.watchdog = watchdog
    }

    /// `postgresql://stepsync@127.0.0.1:PORT/DATABASE?sslmode=disable`.
    public func url(database: String) -> String {
        "postgresql://\(user)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// Creates a cluster and starts it; on failure nothing is left running.
    static func create(binaries: String) async throws -> PostgresServer {
        let base = ProcessInfo.processInfo.environment["STEPSYNC_PG_TMP"] ?? "/tmp"
        let directory = (base as NSString).appendingPathComponent("stepsync-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        if PostgresHarness.asRoot {
            guard let entry = getpwnam("postgres") else {
                throw PostgresHarness.Failure("no `postgres` user to run initdb as (install the postgresql package)")
            }
            guard chown(directory, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
                throw PostgresHarness.Failure("cannot chown \(directory) to postgres: errno \(errno)")
            }
        }
        let watchdog = try Self.startWatchdog(directory: directory, binaries: binaries)
        do {
            let initdb = try await PostgresHarness.run(
                binaries + "/initdb",
                ["-D", directory + "/data", "-A", "trust", "-U", "stepsync", "-E", "UTF8", "--no-locale", "--no-sync"],
                asServerUser: true)
            guard initdb.status == 0 else { throw PostgresHarness.Failure("initdb failed: \(initdb.output.suffix(800))") }
            var lastError: (any Error)?
            for _ in 0..<5 {
                let server = PostgresServer(directory: directory, port: try PostgresHarness.freePort(),
                                            binaries: binaries, watchdog: watchdog)
                do {
                    try await server.start()
                    return server
                } catch {
                    lastError = error  // most likely the port was taken meanwhile: try another
                }
            }
            throw lastError ?? PostgresHarness.Failure("postgres did not start")
        } catch {
            kill(watchdog, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(watchdog, &status, 0)
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// `pg_ctl start -w` (returns once the server accepts connections).
    public func start() async throws {
        let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c max_connections=300"
            + " -c shared_buffers=32MB"
        let result = try await PostgresHarness.run(
            binaries + "/pg_ctl",
            ["-D", directory + "/data", "-l", directory + "/log", "-w", "-t", "60", "-o", options, "start"],
            asServerUser: true)
        guard result.status == 0 else {
            let log = (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? ""
            throw PostgresHarness.Failure("pg_ctl start failed: \(result.output.suffix(400)) \(log.suffix(600))")
        }
    }

    /// `pg_ctl stop -m fast -w`: open connections are terminated, the server shuts down cleanly.
    public func stop() async throws {
        let result = try await PostgresHarness.run(
            binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "-t", "60", "stop"],
            asServerUser: true)
        guard result.status == 0 else { throw PostgresHarness.Failure("pg_ctl stop failed: \(result.output.suffix(400))") }
    }

    /// `pg_ctl stop -m immediate`: the postmaster gets SIGQUIT and every backend dies at once, no checkpoint (a
    /// crash, as far as the sink can tell). Resumes a ``pause()``d server first-thing after the signal is sent, so
    /// the stop lands while it was paused; returns once the server is gone.
    public func stopImmediately() async throws {
        let paused = processIDs()
        let result = try await PostgresHarness.run(
            binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-W", "stop"], asServerUser: true)
        for pid in paused { kill(pid, SIGCONT) }
        guard result.status == 0 else {
            throw PostgresHarness.Failure("pg_ctl stop -m immediate failed: \(result.output.suffix(400))")
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while let pid = postmasterPID(), kill(pid, 0) == 0 {
            guard ContinuousClock.now < deadline else { throw PostgresHarness.Failure("postgres did not stop in 60 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops (SIGSTOP) the postmaster and every one of its processes: the server accepts connections (the kernel
    /// completes them) and receives queries, but answers nothing — a database that went quiet. ``stopImmediately()``
    /// or ``resume()`` ends it.
    public func pause() {
        for pid in processIDs() { kill(pid, SIGSTOP) }
    }

    /// SIGCONT to the processes ``pause()`` stopped.
    public func resume() {
        for pid in processIDs() { kill(pid, SIGCONT) }
    }

    /// The postmaster's pid (first line of `postmaster.pid`), while the server runs.
    public func postmasterPID() -> pid_t? {
        guard let text = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8),
              let first = text.split(separator: "\n").first
        else { return nil }
        return pid_t(first.trimmingCharacters(in: .whitespaces))
    }

    /// The postmaster and its children (from `/proc`).
    func processIDs() -> [pid_t] {
        guard let postmaster = postmasterPID() else { return [] }
        var pids = [postmaster]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(name),
                  let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { continue }
            // "pid (comm) state ppid …"
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { pids.append(pid) }
        }
        return pids
    }

    /// How many of this server's accepted or queued connections hold bytes it has not read yet (from
    /// `/proc/net/tcp`): while the server is ``pause()``d, the queries and connection requests waiting on it.
    public func unreadConnections() -> Int {
        guard let table = try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8) else { return 0 }
        let local = String(format: "%04X", port)
        var count = 0
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 4, fields[1].hasSuffix(":" + local) else { continue }
            let queues = fields[4].split(separator: ":")
            if queues.count == 2, let rx = Int(queues[1], radix: 16), rx > 0 { count += 1 }
        }
        return count
    }

    /// Starts `psql -c sql` on the database of `url` in the background (it ends with the server, or when killed);
    /// returns its pid.
    public func startPsql(_ sql: String, url: String) throws -> pid_t {
        let name = url.split(separator: "/").last?.split(separator: "?").first.map(String.init) ?? "postgres"
        return try PostgresHarness.spawn(
            [binaries + "/psql", "-X", "-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", name, "-c", sql],
            outputPath: "/dev/null")
    }

    /// Stops the server (if running) and removes its directory and watchdog.
    func destroy() async {
        try? await stop()
        try? FileManager.default.removeItem(atPath: directory)
        kill(watchdog, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(watchdog, &status, 0)
    }

    /// Creates an empty database with a fresh name; returns its URL.
    public func createDatabase() async throws -> String {
        let name = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let result = try await PostgresHarness.run(
            binaries + "/createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", user, name], asServerUser: false)
        guard result.status == 0 else { throw PostgresHarness.Failure("createdb failed: \(result.output.suffix(400))") }
        return url(database: name)
    }

    /// Drops a database made by ``createDatabase()``, closing its connections first.
    public func dropDatabase(url: String) async {
        guard let name = url.split(separator: "/").last?.split(separator: "?").first else { return }
        _ = try? await psql("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)", database: "postgres")
    }

    /// Runs SQL with `psql` and returns its unaligned, tuples-only output (`|` between columns, a line per row).
    public func psql(_ sql: String, database: String) async throws -> String {
        let result = try await PostgresHarness.run(
            binaries + "/psql",
            ["-X", "-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", database, "-At", "-v", "ON_ERROR_STOP=1",
             "-c", sql],
            asServerUser: false)
        guard result.status == 0 else { throw PostgresHarness.Failure("psql failed: \(result.output.suffix(600))") }
        return result.output
    }

    /// ``psql(_:database:)`` on the database of a URL made by ``createDatabase()``.
    public func psql(_ sql: String, url: String) async throws -> String {
        let name = url.split(separator: "/").last?.split(separator: "?").first.map(String.init) ?? "postgres"
        return try await psql(sql, database: name)
    }

    /// Everything the database of `url` holds, as `pg_dump` writes it (schema and data).
    public func dump(url: String) async throws -> String {
        let name = url.split(separator: "/").last?.split(separator: "?").first.map(String.init) ?? "postgres"
        let result = try await PostgresHarness.run(
            binaries + "/pg_dump", ["-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", name], asServerUser: false)
        guard result.status == 0 else { throw PostgresHarness.Failure("pg_dump failed: \(result.output.suffix(600))") }
        return result.output
    }

    /// A shell that waits for this process to end, then stops the server and removes its directory.
    private static func startWatchdog(directory: String, binaries: String) throws -> Int32 {
        let stop = PostgresHarness.asRoot ? "runuser -u postgres -- \(binaries)/pg_ctl" : "\(binaries)/pg_ctl"
        let script = """
            trap '' INT TERM HUP
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            \(stop) -D '\(directory)/data' -m fast -w stop >/dev/null 2>&1
            rm -rf '\(directory)'
            """
        return try PostgresHarness.spawn(["/bin/sh", "-c", script], outputPath: "/dev/null")
    }
}

/// Where tests get a PostgreSQL server: a shared one (started on first use, one database per test) or one of their
/// own (for tests that stop and start it).
public enum PostgresHarness {
    /// A harness failure, with the tool's output.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        /// A failure described for people.
        public init(_ description: String) { self.description = description }
    }

    /// The server binaries: `STEPSYNC_PG_BIN`, else the newest `/usr/lib/postgresql/*/bin`, else `initdb` on PATH.
    public static let binaries: String? = {
        let fm = FileManager.default
        if let path = ProcessInfo.processInfo.environment["STEPSYNC_PG_BIN"], !path.isEmpty { return path }
        let versions = ((try? fm.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap(Int.init).sorted()
        for version in versions.reversed() where fm.isExecutableFile(atPath: "/usr/lib/postgresql/\(version)/bin/initdb") {
            return "/usr/lib/postgresql/\(version)/bin"
        }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        where fm.isExecutableFile(atPath: "\(dir)/initdb") {
            return String(dir)
        }
        return nil
    }()

    /// True on CI (`CI=true`): the PostgreSQL tests must run there, never be skipped.
    public static var onCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Whether the PostgreSQL tests run: always on CI (they fail there if the server is missing), elsewhere when
    /// the server binaries are installed.
    public static var shouldRun: Bool { onCI || binaries != nil }

    /// The lease timeout of every test storage that is not about an unavailable database: on a loaded shared machine
    /// (load average 20+ on 2 cores) a first connection can take longer than `serve`'s 5 s, and a test must not
    /// race the wall clock. It is also each call's deadline (the storage's operation timeout is at least the lease
    /// timeout): a v2 → v5 migration test once ran past 120 s with two builds beside it. Tests of the 503 path set
    /// their own short timeout.
    public static let patientLeaseTimeout: Duration = .seconds(300)

    static var asRoot: Bool { getuid() == 0 }

    private static let shared = SharedServer()

    /// Runs `body` with the URL of a fresh, empty database on the shared server (started on first use, stopped when
    /// the test process ends); the database is dropped afterwards.
    public static func withDatabase<R>(_ body: (_ url: String) async throws -> R) async throws -> R {
        let server = try await shared.server()
        let url = try await server.createDatabase()
        do {
            let result = try await body(url)
            await server.dropDatabase(url: url)
            return result
        } catch {
            await server.dropDatabase(url: url)
            throw error
        }
    }

    /// The shared server (for tests that also want `psql`).
    public static func sharedServer() async throws -> PostgresServer { try await shared.server() }

    /// Runs `body` with a server of its own, stopped (`-m fast`) and removed afterwards on every path.
    public static func withServer<R>(_ body: (PostgresServer) async throws -> R) async throws -> R {
        let server = try await PostgresServer.create(binaries: try requireBinaries())
        do {
            let result = try await body(server)
            await server.destroy()
            return result
        } catch {
            await server.destroy()
            throw error
        }
    }

    static func requireBinaries() throws -> String {
        guard let binaries else {
            throw Failure("PostgreSQL server binaries not found (apt-get install postgresql, or set STEPSYNC_PG_BIN)")
        }
        return binaries
    }

    /// One server for the whole test process, started once.
    private actor SharedServer {
        private var starting: Task<PostgresServer, any Error>?

        func server() async throws -> PostgresServer {
            if let starting { return try await starting.value }
            let task = Task { try await PostgresServer.create(binaries: try PostgresHarness.requireBinaries()) }
            starting = task
            return try await task.value
        }
    }

    // MARK: - Processes

    /// Runs a program to its end (as the `postgres` user when `asServerUser` and this process is root); returns
    /// its exit status and combined output.
    ///
    /// Not Foundation's `Process`: on Linux it reports a process's end only once every descendant has closed a
    /// descriptor it inherits, and `pg_ctl start` leaves the server running as such a descendant. So: `posix_spawn`
    /// and `waitpid` (on a dispatch thread), output to a file. A program still running after `timeout` is killed
    /// and this throws, naming it: a test waiting on a stuck `psql` fails rather than hangs.
    static func run(_ path: String, _ arguments: [String], asServerUser: Bool,
                    timeout: Duration = .seconds(300)) async throws -> (status: Int32, output: String) {
        // From `/`, which the postgres user can enter (initdb and pg_ctl complain about an unreadable directory).
        let command = ["/bin/sh", "-c", "cd / && exec \"$0\" \"$@\"", path] + arguments
        let argv = asServerUser && asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + command : command
        let outputPath = TemporaryDirectory.uniquePath("stepsync-pg-out")
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let pid = try spawn(argv, outputPath: outputPath)
        let status: Int32? = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let deadline = ContinuousClock.now + timeout
                var status: Int32 = 0
                var result: pid_t
                repeat {
                    result = waitpid(pid, &status, WNOHANG)
                    if result == 0 {
                        guard ContinuousClock.now < deadline else {
                            kill(pid, SIGKILL)
                            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                            return continuation.resume(returning: nil)
                        }
                        usleep(2_000)
                    }
                } while result == 0 || (result == -1 && errno == EINTR)
                // WIFEXITED → WEXITSTATUS; a signal → 128 + signal, as a shell reports it.
                let signal = status & 0x7F
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
            }
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard let status else {
            throw Failure("\((path as NSString).lastPathComponent) \(arguments.suffix(2)) still ran after \(timeout): killed; \(output.suffix(400))")
        }
        return (status, output)
    }

    /// Starts `argv` with stdin from /dev/null, stdout+stderr appended to `outputPath` and no other descriptor of
    /// ours; returns its pid (the caller reaps it).
    static func spawn(_ argv: [String], outputPath: String) throws -> pid_t {
        do { return try ChildProcess.spawn(argv, stdout: outputPath) } catch { throw Failure("\(error)") }
    }

    /// A loopback port nobody listens on right now (free for a server the caller starts at once; a test that needs a
    /// port that keeps refusing holds a ``ClosedPort``).
    public static func freePort() throws -> Int {
        let (fd, port) = try ClosedPort.bindEphemeral()
        close(fd)
        return port
    }
}
