import Foundation
import StepSyncCore

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
    /// Seconds of work before anything is shown (so a step that ends quickly prints nothing).
    private let showAfter: Double
    /// The time since the reporter was created, on the clock it was given.
    private let elapsed: @Sendable () -> Duration
    /// ``elapsed`` at the last draw.
    private var lastDraw: Duration?
    private var drewBar = false
    /// The last wait the sync said without a terminal (``update(_:)`` repeats it only when it changes).
    var lastNote: String?

    /// Creates a reporter for `label`; silent when `enabled` is false.
    init(label: String, enabled: Bool = true, plainInterval: Double = 5, showAfter: Double = 0, time: TimeSource) {
        self.elapsed = time.stopwatch()
        self.label = label
        self.showAfter = showAfter
        self.enabled = enabled
        self.isTerminal = isatty(STDERR_FILENO) == 1
        self.plainInterval = plainInterval
    }

    /// Seconds since the reporter was created.
    var elapsedSeconds: Double {
        elapsed().inSeconds
    }

    /// How the remaining time is shown.
    enum ETA {
        /// From the elapsed time and the fraction done.
        case auto
        /// Not at all (nothing meaningful to say, e.g. while waiting for a server).
        case none
        /// This many seconds, computed by the caller (e.g. from the time actually spent working).
        case seconds(Double)
    }

    /// Reports `done` of `total` units, with an optional detail such as "12,000 samples, 95k samples/s".
    mutating func update(done: Int64, total: Int64, detail: String = "", force: Bool = false, eta: ETA = .auto) {
        guard enabled, showAfter <= 0 || elapsedSeconds >= showAfter else { return }
        let now = elapsed()
        let minGap: Duration = isTerminal ? .milliseconds(100) : .milliseconds(Int64(plainInterval * 1000))
        if !force, let lastDraw, now - lastDraw < minGap { return }
        lastDraw = now
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let elapsed = elapsedSeconds
        var etaText = ""
        if fraction > 0.001, fraction < 1 {
            switch eta {
            case .auto: etaText = " ETA " + Self.clock(elapsed / fraction - elapsed)
            case .none: break
            case .seconds(let seconds): etaText = " ETA " + Self.clock(seconds)
            }
        }
        let counts = "\(done)/\(total) \(label)"
        let tail = detail.isEmpty ? "" : " · \(detail)"
        if isTerminal {
            let width = 28
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let line = String(format: "\r%@ %3.0f%% %@%@%@ \u{1B}[K", bar, fraction * 100, counts, tail, etaText)
            FileHandle.standardError.write(Data(line.utf8))
            drewBar = true
        } else {
            let line = String(format: "progress: %.0f%% %@%@%@\n", fraction * 100, counts, tail, etaText)
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// Says `text` on stderr, even when the bar is disabled (`--json`): on a terminal it takes the bar's line (the
    /// next update draws the bar again), elsewhere it is a line of its own.
    mutating func note(_ text: String) {
        if isTerminal {
            FileHandle.standardError.write(Data("\r\(text)\u{1B}[K".utf8))
            drewBar = true
        } else {
            FileHandle.standardError.write(Data("\(text)\n".utf8))
        }
        lastDraw = nil
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
