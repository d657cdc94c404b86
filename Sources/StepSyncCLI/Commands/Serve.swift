import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import StepSyncSink

extension StepSyncCommand {
    /// `stepsync serve`: the bundled JSONL sink.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the bundled HealthStepsSync-compatible sink: POST/GET/DELETE /steps, GET /health.",
            discussion: """
                Stores samples in a JSONL file, exactly once by uuid, and answers 2xx only once they are on disk. \
                Prints "listening on http://HOST:PORT" on stdout; SIGINT/SIGTERM stop it gracefully.
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: "The address to bind (loopback by default).")
        var host = "127.0.0.1"

        @Option(help: "The port to listen on; 0 picks a free one.")
        var port = 8000

        @Option(name: .customLong("data"), help: ArgumentHelp(
            "The JSONL data file.", discussion: "Defaults to <data-dir>/sink/steps.jsonl.", valueName: "file"))
        var dataFile: String?

        @Option(help: ArgumentHelp(
            "Require Authorization: Bearer <token> on every request but /health.",
            discussion: "Defaults to STEPSYNC_TOKEN."))
        var token: String?

        @Option(help: "The largest request body accepted, in MiB.")
        var maxBodyMib = 64

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535, not \(port)") }
            guard maxBodyMib > 0 else { throw ValidationError("--max-body-mib must be positive") }
        }

        func run() async throws {
            var logger = Logger(label: "stepsync.sink")
            logger.logLevel = .info
            let environmentToken = ProcessInfo.processInfo.environment["STEPSYNC_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            let configuration = SinkConfiguration(
                host: host, port: port, dataPath: dataFile ?? data.dataDirectory.sinkDataPath,
                token: token ?? environmentToken, maxBodyBytes: maxBodyMib << 20)
            let host = self.host
            let app = try await buildSinkApplication(configuration: configuration, logger: logger) { port in
                // Unbuffered, so a script reading the port sees it at once.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
            }
            let group = ServiceGroup(configuration: .init(
                services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        }
    }
}
