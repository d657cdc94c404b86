import Dispatch
import Foundation
import StepSyncEngine

/// SIGINT and SIGTERM mapped to a ``SyncStop`` for the lifetime of a body.
enum SignalHandlers {
    /// Runs `body` with SIGINT and SIGTERM requesting `stop` (each signal one request), then restores the defaults.
    static func withStopOnSignals<R>(_ stop: SyncStop, _ body: () async throws -> R) async throws -> R {
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            // Ignore the default action first, or the process would die before the source sees the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                FileHandle.standardError.write(Data("\nstepsync: stop requested (again to cancel the intervals in flight)\n".utf8))
                stop.request()
            }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        return try await body()
    }
}
