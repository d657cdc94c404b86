import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import StepSyncCore
import StepSyncPostgres
import StepSyncSink

extension StepSyncCommand {
    /// `stepsync serve`: the bundled JSONL sink.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the bundled sink: POST/GET/DELETE /steps and /samples (every type), GET /health.",
            discussion: """
                Stores samples in JSONL files (steps.jsonl for step counts, samples/<type>.jsonl for the others), \
                exactly once by uuid, and answers 2xx only once they are on disk. One sink per data directory (a \
                second one exits at once, naming the first's pid). On a loopback address it answers only requests \
                for localhost; any other address needs --token (or --allow-unauthenticated). Prints \
                "listening on http://HOST:PORT" on stdout; SIGINT/SIGTERM stop it gracefully. With --tls-cert and \
                --tls-key (PEM) it serves HTTPS only (a plain-HTTP request to that port is refused); a non-loopback \
                --host without them prints a warning: tokens would cross the network in clear.

                With --database URL (or STEPSYNC_DATABASE_URL) it stores in PostgreSQL instead, for many clients: \
                every request but /health needs a client's token (stepsync clients add), and each client sees only \
                its own samples; several sinks may serve one database.

                Example:
                  stepsync serve --port 8000
                  STEPSYNC_TOKEN=s3cret stepsync serve --host 0.0.0.0 --port 8000
                  stepsync serve --host 0.0.0.0 --database postgresql://stepsync@db/stepsync
                """)

        @OptionGroup var data: DataDirectoryOptions

        @OptionGroup var database: DatabaseOptions

        /// How batches enter PostgreSQL (hidden: for the side-by-side measurement in `Planning/postgres.md`).
        @Option(name: .customLong("database-ingest"), help: .hidden)
        var databaseIngest: PostgresSampleStorage.IngestMethod = .copy

        @Option(help: "The address to bind (loopback by default).")
        var host = "127.0.0.1"

        @Option(help: "The port to listen on; 0 picks a free one.")
        var port = 8000

        @Option(name: .customLong("data"), help: ArgumentHelp(
            "The JSONL file of step counts; the other types go to samples/ beside it.",
            discussion: "Defaults to <data-dir>/sink/steps.jsonl.", valueName: "file"))
        var dataFile: String?

        @Option(parsing: .unconditional, help: ArgumentHelp(
            "Require Authorization: Bearer <token> on every request but /health.",
            discussion: "Defaults to STEPSYNC_TOKEN. Required when --host is not a loopback address."))
        var token: String?

        @Flag(help: "Run on a non-loopback --host without a token: anyone who can reach it can read and delete.")
        var allowUnauthenticated = false

        @Option(name: .customLong("tls-cert"), help: ArgumentHelp(
            "Serve HTTPS with this PEM certificate (chain); needs --tls-key.", valueName: "file"))
        var tlsCert: String?

        @Option(name: .customLong("tls-key"), help: ArgumentHelp(
            "The PEM private key of --tls-cert.", valueName: "file"))
        var tlsKey: String?

        @Option(help: "The largest request body accepted, in MiB (1…1024).")
        var maxBodyMib = 64

        @Option(help: "The largest body of POST /ingest/health-auto-export, in bytes (1…1000000000).")
        var maxHaeBytes = SinkConfiguration.defaultMaxHAEBytes

        @Option(help: ArgumentHelp(
            "The most distinct sample types stored (\(SinkConfiguration.maxTypesRange.lowerBound)…\(SinkConfiguration.maxTypesRange.upperBound)).",
            discussion: "Per sink on JSONL, per client with --database; a request bringing more is refused whole (400 too_many_types)."))
        var maxTypes = SinkConfiguration.defaultMaxTypes

        @Option(name: .customLong("cors-origin"), help: ArgumentHelp(
            "Let pages of this origin call the API from a browser (repeatable), e.g. https://app.example.",
            discussion: "None by default. Answers preflights and adds Access-Control-Allow-Origin for these origins only.",
            valueName: "origin"))
        var corsOrigins: [String] = []

        @Option(name: .customLong("log-level"), help: ArgumentHelp(
            "The least severe log lines printed: trace, debug, info, notice, warning, error or critical.",
            discussion: "Defaults to STEPSYNC_LOG_LEVEL, else info, which prints one line per request; notice keeps "
                + "only starts, stops, degradations and warnings.", valueName: "level"))
        var logLevel: String?

        @Option(name: .customLong("log-format"), help: ArgumentHelp(
            "How log lines are written on stderr: text, or json (one object a line, for a log shipper).",
            discussion: "Defaults to STEPSYNC_LOG_FORMAT, else text.", valueName: "format"))
        var logFormat: String?

        /// Whether `--log-format` (or `STEPSYNC_LOG_FORMAT`) asks for JSON lines.
        func jsonLogs() throws -> Bool {
            let text = (EnvironmentValue.or(logFormat, "STEPSYNC_LOG_FORMAT") ?? "text").lowercased()
            guard text == "text" || text == "json" else {
                throw ValidationError("--log-format \(text.prefix(64)) is not a format: text or json")
            }
            return text == "json"
        }

        @Option(name: .customLong("metrics-token"), parsing: .unconditional, help: ArgumentHelp(
            "The token GET /metrics needs (Authorization: Bearer <token>).",
            discussion: """
                Defaults to STEPSYNC_METRICS_TOKEN. Without one, /metrics is open on a loopback --host and needs \
                --token elsewhere; with --database on a non-loopback --host it is then refused (no client's token \
                reads every client's figures).
                """, valueName: "token"))
        var metricsToken: String?

        /// The level `--log-level` (or `STEPSYNC_LOG_LEVEL`) names.
        func resolvedLogLevel() throws -> Logger.Level {
            let text = EnvironmentValue.or(logLevel, "STEPSYNC_LOG_LEVEL") ?? "info"
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw ValidationError("--log-level \(text) is not a level: trace, debug, info, notice, warning, error or critical")
            }
            return level
        }

        @Option(help: ArgumentHelp(
            "Seconds a connection may take to send a complete request head (0.1…3600); then 408 and close.",
            valueName: "seconds"))
        var headerTimeout: Double = 10

        @Option(help: ArgumentHelp(
            "Seconds a request body may stall without a byte (0.1…3600); then 408 and close.", valueName: "seconds"))
        var bodyTimeout: Double = 30

        @Option(help: ArgumentHelp(
            "Seconds a kept-alive connection may wait for its next request (0.1…3600); then it is closed.",
            valueName: "seconds"))
        var idleTimeout: Double = 75

        @Option(help: ArgumentHelp(
            "The most connections held at once (1…100000), lowered to fit the descriptor limit (ulimit -n).",
            discussion: """
                At the cap, the connection waiting longest without a request head is closed to make room; if every \
                connection is busy with a request, the newcomer is answered 503.
                """))
        var maxConnections = 1000

        /// The connection options as limits.
        var connectionLimits: ConnectionLimits {
            ConnectionLimits(headerTimeout: .seconds(headerTimeout), bodyTimeout: .seconds(bodyTimeout),
                             idleTimeout: .seconds(idleTimeout), maxConnections: maxConnections)
        }

        /// The deadline of a request's database work, in seconds (hidden: process tests shorten it).
        @Option(name: .customLong("database-timeout"), help: .hidden)
        var databaseTimeout = 6.0

        var effectiveToken: String? {
            EnvironmentValue.or(token, "STEPSYNC_TOKEN")
        }

        /// The TLS of `--tls-cert`/`--tls-key`, or `nil` for plain HTTP.
        var tls: SinkTLS? {
            guard let tlsCert, let tlsKey else { return nil }
            return SinkTLS(certificatePath: tlsCert, keyPath: tlsKey)
        }

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535, not \(port)") }
            _ = try resolvedLogLevel()
            _ = try jsonLogs()
            guard (0.1...600).contains(databaseTimeout) else {
                throw ValidationError("--database-timeout must be 0.1…600 seconds, not \(databaseTimeout)")
            }
            guard (tlsCert == nil) == (tlsKey == nil) else {
                throw ValidationError("--tls-cert and --tls-key go together: give both PEM files, or neither for plain HTTP")
            }
            if let tls {
                do {
                    _ = try tls.serverConfiguration(now: TimeSource.system.nowMs() / 1000)
                } catch {
                    throw ValidationError("\(error)")
                }
            }
            guard (1...1024).contains(maxBodyMib) else {
                throw ValidationError("--max-body-mib must be 1…1024 (MiB), not \(maxBodyMib)")
            }
            guard (1...1_000_000_000).contains(maxHaeBytes) else {
                throw ValidationError("--max-hae-bytes must be 1…1000000000 (bytes), not \(maxHaeBytes)")
            }
            guard SinkConfiguration.maxTypesRange.contains(maxTypes) else {
                throw ValidationError("""
                    --max-types must be \(SinkConfiguration.maxTypesRange.lowerBound)…\(SinkConfiguration.maxTypesRange.upperBound), \
                    not \(maxTypes)
                    """)
            }
            for origin in corsOrigins {
                if let problem = CORSPolicy.problem(with: origin) { throw ValidationError("--cors-origin: \(problem)") }
            }
            let range = ConnectionLimits.timeoutSecondsRange
            for (name, seconds) in [("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout),
                                    ("--idle-timeout", idleTimeout)]
            where !range.contains(seconds) {
                throw ValidationError("\(name) must be \(range.lowerBound)…\(Int(range.upperBound)) seconds, not \(seconds)")
            }
            guard ConnectionLimits.maxConnectionsRange.contains(maxConnections) else {
                let range = ConnectionLimits.maxConnectionsRange
                throw ValidationError("--max-connections must be \(range.lowerBound)…\(range.upperBound), not \(maxConnections)")
            }
            if database.givenURL != nil {
                _ = try database.url()
                guard token == nil else {
                    throw ValidationError("--token does not apply with --database: each client has its own token (stepsync clients add)")
                }
                return
            }
            let configuration = SinkConfiguration(host: host, dataPath: "", token: effectiveToken,
                                                  allowUnauthenticated: allowUnauthenticated, time: .system)
            do {
                try SinkSetupError.check(configuration)
            } catch {
                throw ValidationError("\(error)")
            }
        }

        func run() async throws {
            // Before anything is opened or logged: a port in use is said in words, naming it and --port.
            if let problem = PortCheck.problem(host: host, port: port) {
                FileHandle.standardError.write(Data(
                    "error: \(PortCheck.message(host: host, port: port, reason: problem.reason, inUse: problem.inUse))\n".utf8))
                throw ExitCode.failure
            }
            let level = try resolvedLogLevel()
            let json = try jsonLogs()
            var logger = json
                ? Logger(label: "stepsync.sink") { JSONLogHandler(label: $0, level: level, time: .system) }
                : Logger(label: "stepsync.sink")
            logger.logLevel = level
            // What serve says on stderr besides its log: plain lines, or log lines of their own with JSON logs (so
            // that every stderr line is one JSON object).
            let sayLogger = logger
            let say: @Sendable (Logger.Level, String) -> Void = { level, text in
                if json {
                    sayLogger.log(level: level, "\(text)")
                } else {
                    FileHandle.standardError.write(Data((level >= .warning ? "warning: \(text)\n" : "\(text)\n").utf8))
                }
            }
            var configuration = SinkConfiguration(
                host: host, port: port, dataPath: dataFile ?? data.dataDirectory.sinkDataPath,
                token: effectiveToken, allowUnauthenticated: allowUnauthenticated, maxBodyBytes: maxBodyMib << 20,
                // A body as large as --max-body-mib always fits the inflate limit and the in-flight budget.
                maxInflatedBytes: max(256 << 20, maxBodyMib << 20), maxBufferedBytes: max(512 << 20, maxBodyMib << 21),
                maxTypes: maxTypes, connectionLimits: connectionLimits, time: .system)
            configuration.cors = CORSPolicy(allowedOrigins: corsOrigins)
            configuration.metricsToken = EnvironmentValue.or(metricsToken, "STEPSYNC_METRICS_TOKEN")
            configuration.maxHAEBytes = maxHaeBytes
            configuration.maxBufferedBytes = max(configuration.maxBufferedBytes, 2 * maxHaeBytes)
            configuration.tls = tls
            if allowUnauthenticated, effectiveToken == nil, !SinkSetupError.isLoopback(host) {
                say(.warning, """
                    serving \(host) without a token: anyone who can reach this port can read and delete every \
                    sample (--allow-unauthenticated)
                    """)
            }
            if tls == nil, !SinkSetupError.isLoopback(host) {
                say(.warning, """
                    serving plain HTTP on \(host): bearer tokens and samples cross the network in clear — give \
                    --tls-cert and --tls-key, or put a TLS proxy in front
                    """)
            }
            let host = self.host
            let scheme = tls == nil ? "http" : "https"
            let announce: @Sendable (Int) async -> Void = { port in
                // Unbuffered, so a script reading the port sees it at once.
                FileHandle.standardOutput.write(Data("listening on \(scheme)://\(host):\(port)\n".utf8))
                say(.notice, "dashboard: \(scheme)://\(host):\(port)/ · API: \(scheme)://\(host):\(port)/openapi.json")
            }
            if database.givenURL != nil {
                let postgres: (storage: PostgresSampleStorage, authenticator: ClientAuthenticator)
                do {
                    let timeout = Duration.milliseconds(Int64(databaseTimeout * 1000))
                    postgres = try await PostgresSink.prepare(
                        configuration: .init(url: try database.url(), ingest: databaseIngest,
                                             leaseTimeout: min(.seconds(5), timeout), operationTimeout: timeout,
                                             maxTypes: maxTypes, time: .system),
                        logger: logger)
                } catch let error as PostgresStorageError {
                    FileHandle.standardError.write(Data("error: \(DatabaseOptions.message(error, url: try database.url()))\n".utf8))
                    throw ExitCode.failure
                }
                try await run(try buildSinkApplication(
                    configuration: configuration, storage: postgres.storage, authenticator: postgres.authenticator,
                    logger: logger, onServerRunning: announce), logger: logger)
            } else {
                try await run(try await buildSinkApplication(configuration: configuration, logger: logger,
                                                             onServerRunning: announce), logger: logger)
            }
        }

        /// How long SIGTERM/SIGINT let requests in flight finish before they are cancelled, and how long the
        /// cancellation may take: the sink is gone within 10 s of the signal in every state. The drain outlasts a
        /// request's database deadline (`--database-timeout`, 6 s), so a request in flight gets its answer (503 at
        /// worst) rather than a closed connection.
        static let drainTimeout: Duration = .seconds(7)
        static let cancellationTimeout: Duration = .seconds(2)

        private func run(_ app: some Service, logger: Logger) async throws {
            var configuration = ServiceGroupConfiguration(
                services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            configuration.maximumGracefulShutdownDuration = Self.drainTimeout
            configuration.maximumCancellationDuration = Self.cancellationTimeout
            do {
                try await ServiceGroup(configuration: configuration).run()
            } catch where "\(error)".contains("Address already in use") {
                // Taken between the check in run() and the bind.
                FileHandle.standardError.write(Data(
                    "error: \(PortCheck.message(host: host, port: port, reason: "", inUse: true))\n".utf8))
                throw ExitCode.failure
            }
        }
    }
}

extension PostgresSampleStorage.IngestMethod: CaseInsensitiveArgument {}
