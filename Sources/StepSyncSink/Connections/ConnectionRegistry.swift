import NIOConcurrencyHelpers
import NIOCore

/// The sink's open connections, shared by every event loop: admits a new one while under the cap; at the cap it
/// makes room by closing the connection that has waited longest without a request head (fresh, reading a head, or
/// idle between requests), and only when every held connection is busy with a request refuses the newcomer.
///
/// So a flood of half-open connections costs each of them its slot in turn, never a real request its answer, and
/// the sink never holds more descriptors than the cap (plus the few being closed).
final class ConnectionRegistry: Sendable {
    enum Admission {
        /// Admitted as `id`; `evicted` (if any) was dropped from the registry to make room and must be closed.
        case admitted(id: UInt64, evicted: (any Channel)?)
        /// Every held connection is busy: answer 503 and close.
        case refused
    }

    private struct Entry {
        let channel: any Channel
        /// Order in which connections became evictable (smaller: waiting longer); nil while busy with a request.
        var evictableSince: UInt64?
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var nextRank: UInt64 = 0
        var refusals = 0
        var lastWarning: ContinuousClock.Instant?
    }

    /// The most connections held at once.
    let capacity: Int
    private let state = NIOLockedValueBox(State())
    /// Told the counts after every change (``SinkConfiguration/onConnectionsChange``: tests wait on it instead of
    /// the clock).
    private let onChange: (@Sendable (ConnectionCounts) -> Void)?

    init(capacity: Int, onChange: (@Sendable (ConnectionCounts) -> Void)? = nil) {
        self.capacity = capacity
        self.onChange = onChange
    }

    /// The connections held and how many of them are busy with a request.
    var counts: ConnectionCounts {
        state.withLockedValue { state in
            ConnectionCounts(held: state.entries.count, busy: state.entries.values.count { $0.evictableSince == nil })
        }
    }

    private func changed() {
        if let onChange { onChange(counts) }
    }

    /// The connections held now.
    var count: Int { state.withLockedValue { $0.entries.count } }

    /// Admits `channel` (evictable: it has sent no request head yet).
    func admit(_ channel: any Channel) -> Admission {
        defer { changed() }
        return state.withLockedValue { state in
            var evicted: (any Channel)?
            if state.entries.count >= capacity {
                var oldest: (id: UInt64, rank: UInt64)?
                for (id, entry) in state.entries {
                    if let rank = entry.evictableSince, rank < oldest?.rank ?? .max { oldest = (id, rank) }
                }
                guard let oldest else {
                    state.refusals += 1
                    return .refused
                }
                evicted = state.entries.removeValue(forKey: oldest.id)?.channel
            }
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = Entry(channel: channel, evictableSince: state.nextRank)
            state.nextRank += 1
            return .admitted(id: id, evicted: evicted)
        }
    }

    /// Marks connection `id` busy with a request (not evictable) or waiting for one (evictable from now).
    func setEvictable(_ id: UInt64, _ evictable: Bool) {
        defer { changed() }
        state.withLockedValue { state in
            guard state.entries[id] != nil else { return }
            if evictable {
                state.entries[id]?.evictableSince = state.nextRank
                state.nextRank += 1
            } else {
                state.entries[id]?.evictableSince = nil
            }
        }
    }

    /// The refusals since the last call that returned some, at most once every 10 s of `now` (to log without
    /// flooding).
    func refusalsToReport(now: ContinuousClock.Instant) -> Int? {
        state.withLockedValue { state in
            guard state.refusals > 0, state.lastWarning.map({ now - $0 >= .seconds(10) }) ?? true else { return nil }
            defer { (state.refusals, state.lastWarning) = (0, now) }
            return state.refusals
        }
    }

    /// Forgets connection `id` (closed).
    func remove(_ id: UInt64) {
        _ = state.withLockedValue { $0.entries.removeValue(forKey: id) }
        changed()
    }
}

/// How many connections a sink holds, and how many of them are busy with a request.
public struct ConnectionCounts: Hashable, Sendable {
    /// Connections held.
    public var held: Int
    /// Of them, those between a request head and its response's end.
    public var busy: Int
}
