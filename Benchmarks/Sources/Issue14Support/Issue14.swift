import Foundation

/// The figures of issue 14's table, one JSON line per measured iteration, for `Benchmarks/issue14.sh` to gather into
/// its table. The benchmarks call it whatever runs them; it writes only when `ISSUE14_RESULTS` names a file.
public enum Issue14 {
    /// Appends `{"row": row, "input": input, …figures}` to the file `ISSUE14_RESULTS` names (and nothing otherwise).
    /// `row` is the table row's key (`sync-realistic`, `sync-seed`, `layering`, `import`, `sink`, `demo`); `input`
    /// names what was measured exactly; `figures` are the iteration's measurements (seconds, samples/s, MB…).
    public static func record(_ row: String, input: String, _ figures: [String: Double]) {
        guard let path = ProcessInfo.processInfo.environment["ISSUE14_RESULTS"], !path.isEmpty else { return }
        var object: [String: Any] = ["row": row, "input": input]
        for (key, value) in figures { object[key] = value }
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        line.append(UInt8(ascii: "\n"))
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// The seconds in `duration`.
    public static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The process's peak resident set so far, in MB (MiB: `ru_maxrss` is KiB on Linux, bytes on macOS).
    public static func peakResidentMegabytes() -> Double {
        var usage = rusage()
        #if canImport(Darwin)
        _ = getrusage(RUSAGE_SELF, &usage)
        return Double(usage.ru_maxrss) / 1_048_576
        #else
        _ = getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_maxrss) / 1_024
        #endif
    }

    /// The CPU time (user + system) this process has used so far, every thread.
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Darwin)
        _ = getrusage(RUSAGE_SELF, &usage)
        #else
        _ = getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #endif
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
