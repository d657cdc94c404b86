import Foundation
import StepSyncCore
import Synchronization

/// What the sink has done since it started, for `GET /stats` and the dashboard: requests answered, samples inserted
/// and duplicates absorbed, and when the last ingest happened. Counted in memory (a restart starts again at zero);
/// one lock per request, held for a few additions.
///
/// **Per client or sink-wide.** A sink of many clients (PostgreSQL) counts per authenticated client: a client's
/// `/stats` shows its own requests and ingests, never another's, and requests no client was authenticated for
/// (401s, `/health`, the public documents) count for nobody. A single-user sink (JSONL) counts every request in one
/// set of counters, as it always has.
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

    private let time: TimeSource
    private let perClient: Bool
    private let startedAtMs: Int64
    /// The counters by client (one entry under `nil` when counting sink-wide).
    private let state = Mutex<[ClientIdentity?: Snapshot]>([:])

    /// Counters starting now, per client or sink-wide; `time` is the clock (tests pass a fixed one).
    init(perClient: Bool = false, time: TimeSource) {
        self.time = time
        self.perClient = perClient
        startedAtMs = time.nowMs()
    }

    /// Counts an answered request of `client` (`nil`: none was authenticated); `dashboard` marks the page's own
    /// reads (`/`, `/stats`, `/openapi.json`, `/health`), which do not move "last request".
    func recordRequest(status: Int, dashboard: Bool, client: ClientIdentity?) {
        guard let key = key(client) else { return }
        let at = dashboard ? nil : time.nowMs()
        update(key) { s in
            s.requests += 1
            if status >= 400 { s.errors += 1 }
            if let at { s.lastRequestMs = at }
        }
    }

    /// Counts an acknowledged ingest of `client`.
    func recordIngest(inserted: Int, duplicates: Int, client: ClientIdentity) {
        guard let key = key(client) else { return }
        let at = time.nowMs()
        update(key) { s in
            s.ingests += 1
            s.inserted += inserted
            s.duplicates += duplicates
            s.lastIngestMs = at
        }
    }

    /// The counters `client` sees now.
    func snapshot(for client: ClientIdentity) -> Snapshot {
        let key = perClient ? client : nil
        return state.withLock { $0[key] } ?? Snapshot(startedAtMs: startedAtMs)
    }

    /// Where a request of `client` is counted: `.some(nil)` sink-wide, `nil` nowhere.
    private func key(_ client: ClientIdentity?) -> ClientIdentity?? {
        guard perClient else { return .some(nil) }
        guard let client else { return nil }
        return .some(client)
    }

    private func update(_ key: ClientIdentity?, _ change: (inout Snapshot) -> Void) {
        let started = startedAtMs
        state.withLock { change(&$0[key, default: Snapshot(startedAtMs: started)]) }
    }

}
