import Foundation

/// Progress of long work on stderr: a redrawn bar on a terminal, a plain line every few seconds otherwise.
///
/// Owned by one task (it is not shared): call ``update(done:total:detail:)`` as often as you like; it redraws at
/// most ten times a second on a TTY and writes a line at most every `plainInterval` seconds elsewhere, then
/// ``finish()`` once.
struct ProgressReporter {
    /// What is being counted, e.g. "intervals" or "MB".
    let label: String
    /// Whether stderr is a terminal (bar) or not (plain lines).
    let isTerminal: Bool
    /// Whether to write anything at all (`--json` and `--quiet` runs stay silent).
    let enabled: Bool
    private let plainInterval: Double
    private let started = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    private var drewBar = false

    /// Creates a reporter for `label`; silent when `enabled` is false.
    init(label: String, enabled: Bool = true, plainInterval: Double = 5) {
        self.label = label
        self.enabled = enabled
        self.isTerminal = isatty(STDERR_FILENO) == 1
        self.plainInterval = plainInterval
    }

    /// Seconds since the reporter was created.
    var elapsedSeconds: Double {
        let d = ContinuousClock.now - started
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Reports `done` of `total` units, with an optional detail such as "12,000 samples, 95k samples/s".
    mutating func update(done: Int64, total: Int64, detail: String = "", force: Bool = false) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let minGap: Duration = isTerminal ? .milliseconds(100) : .milliseconds(Int64(plainInterval * 1000))
        if !force, let lastDraw, now - lastDraw < minGap { return }
        lastDraw = now
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let elapsed = elapsedSeconds
        var eta = ""
        if fraction > 0.001, fraction < 1 {
            eta = " ETA " + Self.clock(elapsed / fraction - elapsed)
        }
        let counts = "\(done)/\(total) \(label)"
        let tail = detail.isEmpty ? "" : " · \(detail)"
        if isTerminal {
            let width = 28
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let line = String(format: "\r%@ %3.0f%% %@%@%@ \u{1B}[K", bar, fraction * 100, counts, tail, eta)
            FileHandle.standardError.write(Data(line.utf8))
            drewBar = true
        } else {
            let line = String(format: "progress: %.0f%% %@%@%@\n", fraction * 100, counts, tail, eta)
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// Ends the bar's line on a terminal.
    mutating func finish() {
        guard enabled, isTerminal, drewBar else { return }
        FileHandle.standardError.write(Data("\n".utf8))
        drewBar = false
    }

    /// `75` → `1:15`, `3700` → `1:01:40`.
    static func clock(_ seconds: Double) -> String {
        let s = max(0, Int(seconds.rounded()))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
