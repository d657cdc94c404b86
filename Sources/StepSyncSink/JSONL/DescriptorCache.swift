#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import NIOConcurrencyHelpers

/// The open descriptors of the JSONL sink's data files: at most ``capacity`` idle ones kept open, the least recently
/// used closed first, so a sink with hundreds of type files holds a handful of descriptors, not one per file.
///
/// A descriptor is leased for one operation (``withDescriptor(_:_:)``) and never closed while leased: a commit on the
/// thread pool and a page read on the storage's actor may use the same file at once. When every cached descriptor is
/// leased, a lease opens one more and the cache shrinks back to ``capacity`` as leases end. Files are opened
/// `O_RDWR | O_APPEND | O_CLOEXEC` (appends go to the end; `pread` reads anywhere).
///
/// Why not one descriptor per file: a client could make the sink open a file per type it invents, and a sink at a
/// 256-descriptor limit then failed every request and could no longer accept connections (`Planning/sink.md`).
final class DescriptorCache: Sendable {
    private struct Entry {
        var fd: Int32
        var leases: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var tick: UInt64 = 0
        /// Descriptors of forgotten entries still leased: closed when their last lease ends.
        var orphans: [Int32: Int] = [:]
    }

    /// How many descriptors stay open when none is leased.
    let capacity: Int
    private let state = NIOLockedValueBox(State())

    /// A cache keeping at most `capacity` (≥ 1) idle descriptors open.
    init(capacity: Int = 16) {
        self.capacity = max(1, capacity)
    }

    /// How many descriptors the cache holds open now (tests).
    var openCount: Int {
        state.withLockedValue { $0.entries.count + $0.orphans.count }
    }

    /// Calls `body` with an open descriptor of `path` (opened if not cached), kept open until `body` returns.
    ///
    /// - Throws: ``SampleLogError`` when the file cannot be opened; what `body` throws.
    func withDescriptor<T>(_ path: String, _ body: (Int32) throws -> T) throws -> T {
        let fd = try lease(path)
        defer { release(path, fd) }
        return try body(fd)
    }

    /// Closes the cached descriptor of `path` (at once if idle, else when its lease ends): after a rename over the
    /// file, the next lease opens the new one.
    func forget(_ path: String) {
        let idle: Int32? = state.withLockedValue { state in
            guard let entry = state.entries.removeValue(forKey: path) else { return nil }
            if entry.leases == 0 { return entry.fd }
            state.orphans[entry.fd] = entry.leases
            return nil
        }
        if let idle { _ = close(idle) }
    }

    /// Closes every idle descriptor (the storage's `close()`); leased ones close when their lease ends.
    func closeAll() {
        let idle: [Int32] = state.withLockedValue { state in
            var idle: [Int32] = []
            for (_, entry) in state.entries {
                if entry.leases == 0 { idle.append(entry.fd) } else { state.orphans[entry.fd] = entry.leases }
            }
            state.entries = [:]
            return idle
        }
        for fd in idle { _ = close(fd) }
    }

    private func lease(_ path: String) throws -> Int32 {
        let cached: Int32? = state.withLockedValue { state in
            guard var entry = state.entries[path] else { return nil }
            state.tick += 1
            entry.leases += 1
            entry.lastUse = state.tick
            state.entries[path] = entry
            return entry.fd
        }
        if let cached { return cached }
        // Opened outside the lock: a slow open (a cold directory) must not hold up the other files' leases.
        let fd = FileSystem.open(path, O_RDWR | O_APPEND | O_CLOEXEC)
        guard fd >= 0 else { throw SampleLogError.io("cannot open", path: path, errno: errno) }
        let (use, evicted): (Int32, [Int32]) = state.withLockedValue { state in
            state.tick += 1
            if var entry = state.entries[path] {
                // Another lease opened it meanwhile: use that one.
                entry.leases += 1
                entry.lastUse = state.tick
                state.entries[path] = entry
                return (entry.fd, [fd])
            }
            state.entries[path] = Entry(fd: fd, leases: 1, lastUse: state.tick)
            return (fd, Self.evict(&state, capacity: capacity))
        }
        for fd in evicted { _ = close(fd) }
        return use
    }

    private func release(_ path: String, _ fd: Int32) {
        let toClose: [Int32] = state.withLockedValue { state in
            if let remaining = state.orphans[fd] {
                if remaining <= 1 {
                    state.orphans[fd] = nil
                    return [fd]
                }
                state.orphans[fd] = remaining - 1
                return []
            }
            guard var entry = state.entries[path], entry.fd == fd else { return [] }
            entry.leases -= 1
            state.entries[path] = entry
            return Self.evict(&state, capacity: capacity)
        }
        for fd in toClose { _ = close(fd) }
    }

    /// Removes idle entries, least recently used first, until at most `capacity` remain; returns their descriptors.
    private static func evict(_ state: inout State, capacity: Int) -> [Int32] {
        guard state.entries.count > capacity else { return [] }
        let idle = state.entries.filter { $0.value.leases == 0 }.sorted { $0.value.lastUse < $1.value.lastUse }
        var closed: [Int32] = []
        for (path, entry) in idle where state.entries.count > capacity {
            state.entries[path] = nil
            closed.append(entry.fd)
        }
        return closed
    }

    deinit {
        for (_, entry) in state.withLockedValue({ $0.entries }) { _ = close(entry.fd) }
    }
}
