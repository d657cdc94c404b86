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
            abstract: "Send the pending intervals' raw samples of every type to the sink, a few at a time, resumably.",
            discussion: """
                Each interval is claimed, sent and marked synced durably only once the sink acknowledged it: step \
                counts to POST <server>/steps, every other type to POST <server>/samples, deletions to \
                /steps/delete or /samples/delete. Ctrl-C (or SIGTERM) pauses at once: the intervals sending finish, \
                any wait ends and the rest stay pending; a second Ctrl-C cancels those in flight too. Run again to \
                carry on; after a crash, intervals left in flight are resent (the sink de-duplicates them).
                A sample that is not valid (a date out of range, a negative count, a field too long…) is not sent: \
                it is recorded as rejected (shown here and by `stepsync status`) and the rest of its interval is sent.
                When the sink cannot be reached or answers 429/502/503/504, no new interval starts: the sync waits \
                for the sink with one backoff (--backoff-base doubling to 30 s, or the sink's Retry-After) and says \
                so on one line; after --give-up-after seconds (default 60) it exits non-zero, saying so, with every unsent interval pending. \
                A fault that hits one interval (a 500, a timeout) is retried for that interval (--max-attempts); a \
                4xx marks it failed and the sync goes on (--retry-failed queues failed ones again). Exits 0 exactly \
                when every interval is synced; 130 when paused by Ctrl-C or SIGTERM; 1 otherwise.
                Consecutive small intervals of one type share a request of at most --request-samples samples \
                (each is still claimed and marked on its own, in one transaction per request); 0 sends every \
                interval alone. A request the sink (or a proxy in front of it) refuses as too large (413) is sent \
                again in parts (packed intervals apart, then one interval's samples) and the limit is kept for the \
                rest of the run; a body never exceeds --max-request-bytes (default 2 MiB, which a request of 5,000 \
                plain samples fits whole) either. An interval fails for size only when one sample alone is refused.
                In flight: --concurrency lanes (default 3), one request each at first; as acknowledgements come \
                back the sync measures the link (the acknowledgement rate and the shortest round trip) and lets the \
                lanes keep as many requests in flight as fill it — about one a lane on loopback, several over a long \
                link — at most --max-in-flight (default 8 a lane). Every request stays within the body limit \
                learnt or set; each interval is still marked synced only after its own acknowledgement.
                Before it sends anything, pending or not, the sync checks that the sink takes its token and that it \
                is the sink this store's ledger synced to (the sink's identity from GET /health, the token's \
                fingerprint): pointed at another sink, or at the same address serving other data, it stops, naming \
                both, and --resend sends every interval there. Without --server it syncs to the store's last sink \
                (`stepsync status` names it), else to http://127.0.0.1:8000.
                For https:// the system's roots are trusted; --cacert FILE (or STEPSYNC_CACERT) adds a private CA \
                or the sink's self-signed certificate.
                Examples:
                  stepsync sync
                  stepsync sync --server http://127.0.0.1:8000 --concurrency 4 --json
                  stepsync sync --type HKQuantityTypeIdentifierHeartRate --give-up-after 0
                  stepsync sync --server https://sink.example:8443 --cacert ca.pem
                  stepsync sync --server http://new-sink.example:8000 --resend
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: ArgumentHelp("The sink's base URL (default: the store's last sink, else http://127.0.0.1:8000).",
                                   valueName: "url"))
        var server: String?

        @Flag(help: ArgumentHelp(
            "Queue every synced and failed interval again first: the sink holds none of it (another sink, one whose data was reset, another client's token).",
            discussion: "The sink keeps one copy of what it already holds (its de-duplication), so resending is safe."))
        var resend = false

        @OptionGroup var tuning: SyncTuningOptions

        @Option(name: .customLong("max-request-bytes"), help: ArgumentHelp(
            "The largest request body to send, in bytes (1024…1073741824); larger requests go in parts.",
            discussion: "A 413 from the sink (or a proxy) lowers it for the rest of the run.", valueName: "n"))
        var maxRequestBytes: Int = SyncConfiguration.defaultMaxRequestBytes

        @Flag(help: "Compress request bodies with gzip.")
        var gzip = false

        @OptionGroup var tls: ServerTLSOptions

        @Option(name: .customLong("max-attempts"), help: "The most sends of one interval in this run when a fault hits it alone (a 500, a timeout), the first included; waits for the sink do not count.")
        var maxAttempts = 5

        @Option(name: .customLong("backoff-base"),
                help: ArgumentHelp("The first retry delay in seconds (doubling each retry).", valueName: "seconds"))
        var backoffBase = 2.0

        @Option(name: .customLong("give-up-after"),
                help: ArgumentHelp("Stop waiting for an unreachable or unavailable sink after this many seconds (0: keep trying).",
                                   valueName: "seconds"))
        var giveUpAfter = 60.0

        @Option(name: .customLong("type"),
                help: ArgumentHelp("Sync only this sample type: a short name (steps, HeartRate) or an identifier (repeatable; default: every type in the ledger).",
                                   valueName: "type"))
        var types: [String] = []

        @Flag(name: .customLong("retry-failed"), help: "Put failed intervals back in the queue first.")
        var retryFailed = false

        @Option(parsing: .unconditional,
                help: ArgumentHelp("A bearer token for the sink (default STEPSYNC_TOKEN).", valueName: "token"))
        var token: String?

        @Flag(help: "Print one JSON object instead of a summary (and no progress); instants in ISO-8601 UTC.")
        var json = false

        @OptionGroup var zone: TimeZoneOptions

        func validate() throws {
            if !SyncConfiguration.maxRequestBytesRange.contains(maxRequestBytes) {
                let range = SyncConfiguration.maxRequestBytesRange
                throw ValidationError("--max-request-bytes must be \(range.lowerBound)…\(range.upperBound) (bytes), not \(maxRequestBytes)")
            }
            guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1, not \(maxAttempts)") }
            guard backoffBase.isFinite, backoffBase >= 0 else {
                throw ValidationError("--backoff-base must be a number of seconds ≥ 0, not \(backoffBase)")
            }
            guard giveUpAfter.isFinite, giveUpAfter >= 0 else {
                throw ValidationError("--give-up-after must be a number of seconds ≥ 0 (0: keep trying), not \(giveUpAfter)")
            }
            if let server {
                do {
                    try HTTPUploader.validateServerURL(server)
                } catch {
                    throw ValidationError(error.description)
                }
            }
        }

        /// The sink this run sends to: `--server`, else the store's last sink, else the default.
        static func resolveServer(_ server: String?, store: StepStore) throws -> String {
            if let server { return server }
            return try store.lastSyncTarget()?.server ?? "http://127.0.0.1:8000"
        }

        func run() async throws {
            try tls.checkFile()
            let directory = data.dataDirectory
            // Nothing to sync without a store: say so, and create nothing.
            let store = try data.openExistingStore()
            let selected = try types.map { try SampleTypeArgument.resolve($0, among: try store.sampleTypes()) }
            let server = try Self.resolveServer(server, store: store)
            let logger = PlainLogHandler.logger("stepsync.sync")
            let configuration = SyncConfiguration(
                tuning.run(outagePolicy: SinkOutageMachine.Policy(baseSeconds: backoffBase, giveUpAfterSeconds: giveUpAfter)),
                retryPolicy: RetryPolicy(maxAttempts: maxAttempts, baseSeconds: backoffBase),
                retryFailed: retryFailed,
                types: selected.isEmpty ? nil : Self.unique(selected),
                maxRequestBytes: maxRequestBytes)
            let caCertificateFile = tls.caCertificateFile
            let token = EnvironmentValue.or(token, "STEPSYNC_TOKEN")
            if let warning = CleartextToken.warning(server: server, token: token) {
                FileHandle.standardError.write(Data((warning + "\n").utf8))
            }
            let stop = SyncStop()
            let json = json
            let resend = resend
            let report = try await SyncLock.withLock(path: directory.syncLockPath) {
                if resend {
                    let requeued = try store.requeueAllIntervals()
                    FileHandle.standardError.write(Data("stepsync: --resend: \(requeued) intervals queued again\n".utf8))
                }
                return try await SignalHandlers.withStopOnSignals(stop) {
                    // The bar only without --json; the waits for the sink are said on stderr either way.
                    try await ReportedSync.run(store: store, server: server, gzip: gzip, token: token,
                                               caCertificateFile: caCertificateFile, configuration: configuration,
                                               stop: stop, showProgress: !json, logger: logger)
                }
            }
            if json, let gaveUp = report.gaveUp {
                // Without --json the summary says it.
                FileHandle.standardError.write(Data(
                    "stepsync: \(Self.gaveUpLine(report, gaveUp))\n".utf8))
            }
            if json {
                try JSONOutput.print(report)
            } else {
                print(Self.summary(report, zone: try zone.displayTimeZone()))
            }
            if !report.isComplete {
                // Paused by Ctrl-C or SIGTERM: 130, as shells report an interrupted command; a script tells a pause
                // (run again to carry on) from a failure (1).
                throw report.stopped && report.gaveUp == nil ? ExitCode(130) : ExitCode.failure
            }
        }

        /// `gave up after 5 min 00 s: cannot reach …`, or `stopped: …` for a failure waiting cannot mend.
        static func gaveUpLine(_ report: SyncReport, _ gaveUp: String) -> String {
            report.gaveUpAtOnce ? "stopped: \(gaveUp)" : "gave up after \(Format.duration(report.gaveUpAfterSeconds)): \(gaveUp)"
        }

        static func unique(_ types: [SampleType]) -> [SampleType] {
            var seen = Set<SampleType>()
            return types.filter { seen.insert($0).inserted }
        }

        // MARK: - Output

        /// The summary for people; failed intervals' ranges in `zone`.
        static func summary(_ report: SyncReport, zone: DisplayTimeZone) -> String {
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
            if report.rejectedThisRun > 0 {
                lines.append("rejected \(Format.number(report.rejectedThisRun)) invalid samples (not sent; the rest of their intervals was):")
                for rejected in report.rejected.prefix(20) {
                    lines.append("  \(rejected.uuid.uuidString) \(rejected.type.shortName): \(rejected.reason) — \(rejected.detail)")
                }
                if report.rejectedThisRun > 20 { lines.append("  … and \(Format.number(report.rejectedThisRun - 20)) more (`stepsync sync --json` lists them)") }
            }
            if !report.failures.isEmpty {
                lines.append("failures:")
                for failure in report.failures.prefix(20) {
                    let type = failure.type == .stepCount ? "" : " \(failure.type.shortName)"
                    lines.append("  #\(failure.intervalId)\(type) \(zone.range(failure.range)) after \(failure.attempts) attempt(s): \(failure.message)")
                }
                if report.failures.count > 20 { lines.append("  … and \(report.failures.count - 20) more") }
                lines.append("Fix the cause, then `stepsync sync --retry-failed` sends them again.")
            }
            lines.append(contentsOf: report.unsupported)
            if let gaveUp = report.gaveUp {
                lines.append(Self.gaveUpLine(report, gaveUp))
                lines.append(report.gaveUpAtOnce
                    ? "\(Format.number(report.pending)) intervals are still pending; mend the cause above, then run `stepsync sync` again."
                    : "\(Format.number(report.pending)) intervals are still pending; run `stepsync sync` again once the sink is up.")
            } else if report.pending > 0 {
                lines.append(report.stopped
                    ? "paused: \(Format.number(report.pending)) intervals left; run `stepsync sync` again to carry on."
                    : "\(Format.number(report.pending)) intervals left; run `stepsync sync` again to carry on.")
            }
            return lines.joined(separator: "\n")
        }
    }
}
