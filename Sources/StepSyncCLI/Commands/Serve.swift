import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
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
                "listening on http://HOST:PORT" on stdout; SIGINT/SIGTERM stop it gracefully.

                With --database URL (or STEPSYNC_DATABASE_URL) it stores in PostgreSQL instead, for many clients: \
                every request but /health needs a client's token (stepsync clients add), and each client sees only \
                its own samples; several sinks may serve one database.

                Example:
                  stepsync serve --port 8000
                  STEPSYNC_TOKEN=s3cret stepsync serve --host 0.0.0.0 --port 8000
                  stepsync serve --host 0.0.0.0 --database postgresql://stepsync@db.example:5432/stepsync
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

        @Option(help: "The largest request body accepted, in MiB (1…1024).")
        var maxBodyMib = 64

        @Option(help: ArgumentHelp(
            "The most distinct sample types stored (\(SinkConfiguration.maxTypesRange.lowerBound)…\(SinkConfiguration.maxTypesRange.upperBound)).",
            discussion: "Per sink on JSONL, per client with --database; a request bringing more is refused whole (400 too_many_types)."))
        var maxTypes = SinkConfiguration.defaultMaxTypes

        @Option(name: .customLong("cors-origin"), help: ArgumentHelp(
            "Let pages of this origin call the API from a browser (repeatable), e.g. https://app.example.",
            discussion: "None by default. Answers preflights and adds Access-Control-Allow-Origin for these origins only.",
            valueName: "origin"))
        var corsOrigins: [String] = []

        var effectiveToken: String? {
            token ?? ProcessInfo.processInfo.environment["STEPSYNC_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        }

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535, not \(port)") }
            guard (1...1024).contains(maxBodyMib) else {
                throw ValidationError("--max-body-mib must be 1…1024 (MiB), not \(maxBodyMib)")
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
            if database.givenURL != nil {
                _ = try database.url()
                guard token == nil else {
                    throw ValidationError("--token does not apply with --database: each client has its own token (stepsync clients add)")
                }
                return
            }
            let configuration = SinkConfiguration(host: host, dataPath: "", token: effectiveToken,
                                                  allowUnauthenticated: allowUnauthenticated)
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
            var logger = Logger(label: "stepsync.sink")
            logger.logLevel = .info
            var configuration = SinkConfiguration(
                host: host, port: port, dataPath: dataFile ?? data.dataDirectory.sinkDataPath,
                token: effectiveToken, allowUnauthenticated: allowUnauthenticated, maxBodyBytes: maxBodyMib << 20,
                // A body as large as --max-body-mib always fits the inflate limit and the in-flight budget.
                maxInflatedBytes: max(256 << 20, maxBodyMib << 20), maxBufferedBytes: max(512 << 20, maxBodyMib << 21),
                maxTypes: maxTypes)
            configuration.cors = CORSPolicy(allowedOrigins: corsOrigins)
            if allowUnauthenticated, effectiveToken == nil, !SinkSetupError.isLoopback(host) {
                FileHandle.standardError.write(Data("""
                    warning: serving \(host) without a token: anyone who can reach this port can read and delete \
                    every sample (--allow-unauthenticated)

                    """.utf8))
            }
            let host = self.host
            let announce: @Sendable (Int) async -> Void = { port in
                // Unbuffered, so a script reading the port sees it at once.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
                FileHandle.standardError.write(Data("""
                    dashboard: http://\(host):\(port)/ · API: http://\(host):\(port)/openapi.json

                    """.utf8))
            }
            if database.givenURL != nil {
                let postgres: (storage: PostgresSampleStorage, authenticator: ClientAuthenticator<ContinuousClock>)
                do {
                    postgres = try await PostgresSink.prepare(
                        configuration: .init(url: try database.url(), ingest: databaseIngest), logger: logger)
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

        private func run(_ app: some Service, logger: Logger) async throws {
            let group = ServiceGroup(configuration: .init(
                services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            do {
                try await group.run()
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
