import Foundation
import Synchronization

/// What the sink has done since it started, for `GET /stats` and the dashboard: requests answered, samples inserted
/// and duplicates absorbed, and when the last ingest happened. Counted in memory (a restart starts again at zero);
/// one lock per request, held for a few additions.
final class SinkActivity: Sendable {
    /// A copy of the counters.
    struct Snapshot: Sendable {
        /// When the sink started (ms since 1970).
        var startedAtMs: Int64
        /// Every request answered, whatever its status.
        var requests = 0
        /// Requests answered 4xx or 5xx.
        var errors = 0
        /// `POST /steps` and `POST /samples` answered 200.
        var ingests = 0
        /// Samples those ingests stored.
        var inserted = 0
        /// Samples those ingests found already stored.
        var duplicates = 0
        /// When the last ingest was answered (ms since 1970), if any.
        var lastIngestMs: Int64?
        /// When the last request other than the dashboard's own reads was answered (ms since 1970), if any.
        var lastRequestMs: Int64?
    }

    private let now: @Sendable () -> Date
    private let state: Mutex<Snapshot>

    /// Counters starting now; `now` is the clock (tests pass a fixed one).
    init(now: @escaping @Sendable () -> Date = Date.init) {
        self.now = now
        state = Mutex(Snapshot(startedAtMs: Self.ms(now())))
    }

    /// Counts an answered request; `dashboard` marks the page's own reads (`/`, `/stats`, `/openapi.json`), which do
    /// not move "last request".
    func recordRequest(status: Int, dashboard: Bool) {
        let at = dashboard ? nil : Self.ms(now())
        state.withLock { s in
            s.requests += 1
            if status >= 400 { s.errors += 1 }
            if let at { s.lastRequestMs = at }
        }
    }

    /// Counts an acknowledged ingest.
    func recordIngest(inserted: Int, duplicates: Int) {
        let at = Self.ms(now())
        state.withLock { s in
            s.ingests += 1
            s.inserted += inserted
            s.duplicates += duplicates
            s.lastIngestMs = at
        }
    }

    /// The counters now.
    var snapshot: Snapshot { state.withLock { $0 } }

    private static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}
