import Logging
import StepSyncEngine
import StepSyncStore

/// One run of the sync engine over HTTP with its progress bar: what `sync` and `demo` both do once their sink is
/// known.
enum ReportedSync {
    /// Sends what `store`'s ledger has pending to the sink at `server` until done or `stop`ped; the bar (or its plain
    /// lines) only when `showProgress`.
    static func run(store: StepStore, server: String, gzip: Bool = false, token: String? = nil,
                    caCertificateFile: String? = nil, configuration: SyncConfiguration, stop: SyncStop,
                    showProgress: Bool, logger: Logger) async throws -> SyncReport {
        try await HTTPUploader.withUploader(
            server: server, gzip: gzip, token: token, caCertificateFile: caCertificateFile,
            concurrency: configuration.run.maxInFlight, time: .system, logger: logger
        ) { uploader in
            let engine = SyncEngine(store: store, uploader: uploader, configuration: configuration, logger: logger,
                                    time: .system)
            var reporter = ProgressReporter(label: "samples", enabled: showProgress, time: .system)
            let report = try await engine.run(stop: stop) { reporter.update($0) }
            reporter.finish()
            return report
        }
    }
}
