import ArgumentParser
import Foundation
import StepSyncCore

/// `stepsync chunks --svg FILE`: the intervals drawn over time (``ChunkChart``) instead of a table.
struct ChunkChartOptions: ParsableArguments {
    @Option(name: .customLong("svg"), help: ArgumentHelp(
        "Draw the intervals listed into an SVG file instead of printing them: one mark per interval over its time "
            + "span, as tall as its share of the limit, coloured by status, oversize ones flagged.",
        discussion: "Open the file in a browser (xdg-open chunks.svg on Linux, open chunks.svg on macOS). Example: stepsync chunks --svg chunks.svg",
        valueName: "file"))
    var svgPath: String?

    @Option(name: .customLong("svg-max-steps"),
            help: ArgumentHelp("The step limit drawn (the --max-steps `layer` used).", valueName: "n"))
    var maxSteps = 10_000

    @Option(name: .customLong("svg-max-samples"),
            help: ArgumentHelp("The sample limit drawn (the --max-samples `layer` used).", valueName: "n"))
    var maxSamples = 5_000

    func validate() throws {
        guard maxSteps > 0 else { throw ValidationError("--svg-max-steps must be positive (got \(maxSteps)).") }
        guard maxSamples > 0 else { throw ValidationError("--svg-max-samples must be positive (got \(maxSamples)).") }
        if let svgPath, svgPath.isEmpty { throw ValidationError("--svg needs a file name.") }
    }

    /// Writes the chart of `intervals` to `--svg` (times in `zone`) and says where, when `--svg` is given; returns
    /// whether it did.
    func writeIfRequested(_ intervals: [SyncInterval], zone: DisplayTimeZone) throws -> Bool {
        guard let svgPath else { return false }
        let chart = ChunkChart(intervals: intervals, limits: .init(maxSteps: Double(maxSteps), maxSamples: maxSamples),
                               timeZone: zone.zone, zoneName: zone.name)
        let url = URL(fileURLWithPath: svgPath)
        do {
            try Data(chart.svg().utf8).write(to: url, options: .atomic)
        } catch {
            throw ValidationError("cannot write \(svgPath.prefix(256)): \(error.localizedDescription)")
        }
        print("Wrote \(Format.number(intervals.count)) intervals to \(url.path)")
        return true
    }
}
