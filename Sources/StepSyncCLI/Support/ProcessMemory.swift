import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// This process's memory now and at its peak, in MB (2^20 bytes): what `stepsync demo --json` reports per stage;
/// and its CPU time, which the demo reports beside it.
struct ProcessMemory: Equatable {
    /// Resident memory now (Linux: `/proc/self/statm`; elsewhere the peak).
    var residentMegabytes: Double
    /// The peak resident memory so far (`ru_maxrss`).
    var peakMegabytes: Double

    /// The figures now.
    static func now() -> ProcessMemory {
        let peak = peakResidentMegabytes()
        return ProcessMemory(residentMegabytes: residentMegabytes() ?? peak, peakMegabytes: peak)
    }

    /// For `--json`: `{"rssMB":…, "peakMB":…}`, to 0.1 MB.
    var json: [String: Double] {
        ["rssMB": (residentMegabytes * 10).rounded() / 10, "peakMB": (peakMegabytes * 10).rounded() / 10]
    }

    /// The resident set now, from `/proc/self/statm` (its second field, in pages); nil where there is none.
    static func residentMegabytes() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }

    /// Keeps glibc's allocator from holding freed memory in many places, for a process that runs the client and the
    /// sink together (`stepsync demo`): at most two malloc arenas instead of eight per core (every NIO and pool
    /// thread that allocates would otherwise get one, each keeping its freed blocks), and allocations of 256 KiB and
    /// more in their own mappings, returned to the system when freed (glibc otherwise raises that threshold to the
    /// largest block freed so far, up to 32 MiB, and keeps such blocks in the arenas). Measured on the demo before
    /// issue 26's other changes: peak 390 → 327–342 MB, resident after the sync 302 → 224 MB, sync CPU 11.8 → 11.95
    /// s; the whole demo ≈ 3 CPU-s more (fresh pages for every request buffer; `Planning/benchmarks.md`). The arena
    /// limit alone changed little. Only the demo calls it.
    static func limitAllocatorRetention() {
        #if canImport(Glibc)
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
        _ = mallopt(-8, 2)  // M_ARENA_MAX
        _ = mallopt(-3, 256 << 10)  // M_MMAP_THRESHOLD (fixed: no longer raised by frees)
        #endif
    }

    /// The process's peak resident memory so far, in MB (`ru_maxrss`: KiB on Linux, bytes on macOS).
    static func peakResidentMegabytes() -> Double {
        #if canImport(Darwin)
        return Double(selfUsage().ru_maxrss) / 1_048_576
        #else
        return Double(selfUsage().ru_maxrss) / 1_024
        #endif
    }

    /// The CPU time (user + system) this process has used so far, every thread.
    static func cpuSeconds() -> Double {
        let usage = selfUsage()
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// `getrusage(RUSAGE_SELF)`.
    private static func selfUsage() -> rusage {
        var usage = rusage()
        #if canImport(Darwin)
        _ = getrusage(RUSAGE_SELF, &usage)
        #else
        _ = getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #endif
        return usage
    }
}
