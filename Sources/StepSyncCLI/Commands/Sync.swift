import ArgumentParser
import Dispatch
import Foundation
import Logging
import StepSyncCore
import StepSyncEngine
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync sync`: send every pending interval's raw samples to the sink, resumably and exactly once.
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send the pending intervals' raw samples to the sink, a few at a time, resumably.",
            discussion: """
                Each interval is claimed, sent (POST <server>/steps) and marked synced durably only once the sink \
                acknowledged it. Ctrl-C (or SIGTERM) pauses: the intervals in flight finish and the rest stay \
                pending; a second Ctrl-C cancels those in flight too. Run again to carry on; after a crash, intervals \
                left in flight are resent (the sink de-duplicates them). Transient failures (connection refused or \
                reset, timeouts, 429, 5xx) are retried with exponential backoff; a 4xx marks the interval failed \
                and the sync goes on (--retry-failed queues failed ones again). Exits 0 exactly when every interval \
                is synced.
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: ArgumentHelp("The sink's base URL.", valueName: "url"))
        var server = "http://127.0.0.1:8000"

        @Option(help: "The most intervals in flight at once.")
        var concurrency = 3

        @Flag(help: "Compress request bodies with gzip.")
        var gzip = false

        @Option(name: .customLong("max-attempts"), help: "The most sends of one interval in this run, the first included.")
        var maxAttempts = 5

        @Option(name: .customLong("backoff-base"),
                help: ArgumentHelp("The first retry delay in seconds (doubling each retry).", valueName: "seconds"))
        var backoffBase = 2.0

        @Flag(name: .customLong("retry-failed"), help: "Put failed intervals back in the queue first.")
        var retryFailed = false

        @Option(help: ArgumentHelp("A bearer token for the sink (default STEPSYNC_TOKEN).", valueName: "token"))
        var token: String?

        @Flag(help: "Print one JSON object instead of a summary (and no progress).")
        var json = false

        func validate() throws {
            guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1, not \(concurrency)") }
            guard concurrency <= 64 else { throw ValidationError("--concurrency must be at most 64, not \(concurrency)") }
            guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1, not \(maxAttempts)") }
            guard backoffBase.isFinite, backoffBase >= 0 else {
                throw ValidationError("--backoff-base must be a number of seconds ≥ 0, not \(backoffBase)")
            }
            do {
                try HTTPUploader.validateServerURL(server)
            } catch {
                throw ValidationError(error.description)
            }
        }

        func run() async throws {
            let directory = data.dataDirectory
            let store = try StepStore(dataDirectory: directory)
            let logger = Logger(label: "stepsync.sync") { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = .notice
                return handler
            }
            let configuration = SyncConfiguration(
                concurrency: concurrency,
                retryPolicy: RetryPolicy(maxAttempts: maxAttempts, baseSeconds: backoffBase),
                retryFailed: retryFailed)
            let token = token ?? ProcessInfo.processInfo.environment["STEPSYNC_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
            let stop = SyncStop()
            let json = json
            let report = try await SyncLock.withLock(path: directory.syncLockPath) {
                try await SignalHandlers.withStopOnSignals(stop) {
                    try await HTTPUploader.withUploader(
                        server: server, gzip: gzip, token: token, concurrency: concurrency, logger: logger
                    ) { uploader in
                        let engine = SyncEngine(store: store, uploader: uploader, configuration: configuration,
                                                logger: logger)
                        var reporter = ProgressReporter(label: "intervals", enabled: !json)
                        let report = try await engine.run(stop: stop) { reporter.update($0) }
                        reporter.finish()
                        return report
                    }
                }
            }
            if json {
                try JSONOutput.print(Self.jsonObject(report))
            } else {
                print(Self.summary(report))
            }
            if !report.isComplete { throw ExitCode.failure }
        }

        // MARK: - Output

        static func jsonObject(_ report: SyncReport) -> [String: Any] {
            [
                "synced": report.synced,
                "failed": report.failed,
                "failedThisRun": report.failedThisRun,
                "pending": report.pending,
                "requeued": report.requeued,
                "recoveredInFlight": report.recoveredInFlight,
                "samples": report.samples,
                "inserted": report.inserted,
                "duplicates": report.duplicates,
                "deletionsSent": report.deletionsSent,
                "deleted": report.deleted,
                "seconds": report.seconds,
                "samplesPerSecond": report.samplesPerSecond.rounded(),
                "intervals": report.totalIntervals,
                "totalSynced": report.totalSynced,
                "stopped": report.stopped,
                "complete": report.isComplete,
                "failures": report.failures.map { failure -> [String: Any] in
                    ["id": failure.intervalId, "start": ISO8601Millis.format(failure.range.start),
                     "end": ISO8601Millis.format(failure.range.end), "attempts": failure.attempts,
                     "message": failure.message]
                },
            ]
        }

        static func summary(_ report: SyncReport) -> String {
            var lines: [String] = []
            if report.totalIntervals == 0 {
                return "The ledger holds no intervals: run `stepsync layer` first."
            }
            if report.recoveredInFlight > 0 {
                lines.append("resumed: \(Format.number(report.recoveredInFlight)) intervals left in flight by an earlier run were resent")
            }
            lines.append("synced \(Format.number(report.synced)) intervals, \(Format.number(report.samples)) samples "
                + "(\(Format.number(report.inserted)) inserted, \(Format.number(report.duplicates)) duplicates) "
                + "in \(Format.duration(report.seconds)), \(Format.number(report.samplesPerSecond.rounded())) samples/s")
            if report.deletionsSent > 0 {
                lines.append("sent \(Format.number(report.deletionsSent)) deletions (\(Format.number(report.deleted)) deleted by the sink)")
            }
            lines.append("ledger: \(Format.number(report.totalSynced)) of \(Format.number(report.totalIntervals)) intervals synced, "
                + "\(Format.number(report.failed)) failed, \(Format.number(report.pending)) left")
            if !report.failures.isEmpty {
                lines.append("failures:")
                for failure in report.failures.prefix(20) {
                    lines.append("  #\(failure.intervalId) \(failure.range) after \(failure.attempts) attempt(s): \(failure.message)")
                }
                if report.failures.count > 20 { lines.append("  … and \(report.failures.count - 20) more") }
                lines.append("Fix the cause, then `stepsync sync --retry-failed` sends them again.")
            }
            if report.pending > 0 {
                lines.append(report.stopped
                    ? "paused: \(Format.number(report.pending)) intervals left; run `stepsync sync` again to carry on."
                    : "\(Format.number(report.pending)) intervals left; run `stepsync sync` again to carry on.")
            }
            return lines.joined(separator: "\n")
        }
    }
}
