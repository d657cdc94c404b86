import Dispatch
import Foundation
import StepSyncEngine

/// SIGINT and SIGTERM handled by a closure for the lifetime of a body, then back to their default actions.
enum SignalHandlers {
    /// Runs `body` with SIGINT and SIGTERM requesting `stop` (each signal one request), then restores the defaults.
    static func withStopOnSignals<R>(_ stop: SyncStop, _ body: () async throws -> R) async throws -> R {
        let sources = install {
            FileHandle.standardError.write(Data("\nstepsync: stop requested (again to cancel the intervals in flight)\n".utf8))
            stop.request()
        }
        defer { uninstall(sources) }
        return try await body()
    }

    /// Runs `body` with SIGINT and SIGTERM calling `handler` (on a global queue), then restores the defaults.
    static func whileInstalled<R>(_ handler: @escaping @Sendable () -> Void, _ body: () throws -> R) rethrows -> R {
        let sources = install(handler)
        defer { uninstall(sources) }
        return try body()
    }

    private static func install(_ handler: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            // Ignore the default action first, or the process would die before the source sees the signal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    private static func uninstall(_ sources: [any DispatchSourceSignal]) {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
