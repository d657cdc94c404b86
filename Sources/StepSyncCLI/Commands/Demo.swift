import ArgumentParser
import Foundation
import Logging
import StepSyncCore
import StepSyncEngine
import StepSyncSink
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync demo`: the whole job in one command, on a fresh temporary data directory.
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the whole job on a fresh temporary data directory: generate → layer → serve → sync.",
            discussion: """
                Generates --years of synthetic history, layers it into ≤ 10,000-step intervals, starts the bundled \
                sink in this process on an ephemeral loopback port (durable acknowledgements on), syncs with \
                --concurrency tasks, checks that the sink holds exactly the store's samples, and prints the figures. \
                The temporary directory is removed at the end unless --keep is given. Ctrl-C pauses the sync.
                """)

        @Option(help: "Years of history to generate.")
        var years = 10

        @Option(help: "realistic (iPhone + Apple Watch, ≈ 0.6 M samples a decade) or seed (the original's density).")
        var profile: GeneratorProfile = .realistic

        @Option(help: "The generator's seed.")
        var seed: UInt64 = 42

        @Option(help: "The most intervals in flight at once.")
        var concurrency = 3

        @Flag(help: "Keep the temporary data directory and print where it is.")
        var keep = false

        @Flag(help: "Print one JSON object with the figures instead of a report.")
        var json = false

        func validate() throws {
            guard (1...200).contains(years) else { throw ValidationError("--years must be between 1 and 200 (got \(years)).") }
            guard (1...64).contains(concurrency) else {
                throw ValidationError("--concurrency must be between 1 and 64 (got \(concurrency)).")
            }
        }

        func run() async throws {
            let root = (NSTemporaryDirectory() as NSString).appendingPathComponent("stepsync-demo-\(UUID().uuidString.prefix(8))")
            let directory = DataDirectory(path: root)
            defer { if !keep { try? FileManager.default.removeItem(atPath: root) } }
            let store = try StepStore(dataDirectory: directory)
            let quiet = json
            let say: (String) -> Void = { line in if !quiet { print(line) } }
            let logger = Logger(label: "stepsync.demo") { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = .warning
                return handler
            }
            say("stepsync demo in \(root)")

            // 1. Generate.
            let generator = SampleGenerator(profile: profile, seed: seed, years: years, end: .today())
            let generated = try Generate.generate(generator, into: store, progress: !json)
            say("1. generate  \(Format.number(generated.summary.inserted)) samples, "
                + "\(Format.number(generated.summary.insertedSteps)) steps, \(generated.days) days "
                + "(\(profile.rawValue), seed \(seed)) in \(Format.duration(generated.seconds)) "
                + "— \(Format.number(Int(generated.samplesPerSecond))) samples/s")

            // 2. Layer.
            let layerStart = ContinuousClock.now
            let engine = LayeringEngine()
            let layered = try store.layer(type: .stepCount, engine: engine)
            let layerSeconds = Self.seconds(since: layerStart)
            let lowerBound = Int((generated.summary.insertedSteps / engine.maxSteps).rounded(.up))
            let largest = layered.intervals.map(\.steps).max() ?? 0
            say("2. layer     \(Format.number(layered.intervals.count)) intervals (lower bound \(Format.number(lowerBound))), "
                + "largest \(Format.number(largest)) steps, \(layered.intervals.filter(\.oversize).count) oversize, "
                + "\(layered.queries) statistics queries in \(Format.duration(layerSeconds))")

            // 3. Serve and 4. sync, in this process.
            let sinkPath = directory.sinkDataPath
            let sinkConfiguration = SinkConfiguration(host: "127.0.0.1", port: 0, dataPath: sinkPath)
            let concurrency = concurrency
            let stop = SyncStop()
            let report = try await SignalHandlers.withStopOnSignals(stop) {
                try await SinkServer.withRunningSink(configuration: sinkConfiguration, logger: logger) { port in
                    if !quiet { print("3. serve     sink on http://127.0.0.1:\(port), appending to \(sinkPath) (fdatasync per group commit)") }
                    return try await HTTPUploader.withUploader(
                        server: "http://127.0.0.1:\(port)", concurrency: concurrency, logger: logger
                    ) { uploader in
                        let engine = SyncEngine(store: store, uploader: uploader,
                                                configuration: SyncConfiguration(concurrency: concurrency), logger: logger)
                        var reporter = ProgressReporter(label: "intervals", enabled: !quiet)
                        let report = try await engine.run(stop: stop) { reporter.update($0) }
                        reporter.finish()
                        return report
                    }
                }
            }
            say("4. sync      \(Format.number(report.synced)) intervals, \(Format.number(report.samples)) samples "
                + "(\(Format.number(report.inserted)) inserted, \(Format.number(report.duplicates)) duplicates) "
                + "with \(concurrency) concurrent tasks in \(Format.duration(report.seconds)) "
                + "— \(Format.number(report.samplesPerSecond.rounded())) samples/s")

            // 5. Check: the sink's file holds exactly one line per store sample.
            let storeCount = try store.total(of: .stepCount, in: LayeringEngine.domain).count
            let sinkLines = try Self.countLines(atPath: sinkPath)
            let exact = report.isComplete && sinkLines == storeCount && report.inserted == storeCount
            say("5. check     store \(Format.number(storeCount)) samples, sink \(Format.number(sinkLines)) lines: "
                + (exact ? "exact" : "MISMATCH"))
            if keep { say("kept \(root)") }

            if json {
                try JSONOutput.print([
                    "dataDir": keep ? root : NSNull(),
                    "profile": profile.rawValue, "years": years, "seed": seed, "concurrency": concurrency,
                    "samples": generated.summary.inserted, "steps": Int64(generated.summary.insertedSteps.rounded()),
                    "generateSeconds": generated.seconds,
                    "intervals": layered.intervals.count, "lowerBound": lowerBound, "largestSteps": largest,
                    "queries": layered.queries, "layerSeconds": layerSeconds,
                    "synced": report.synced, "failed": report.failed, "inserted": report.inserted,
                    "duplicates": report.duplicates, "syncSeconds": report.seconds,
                    "samplesPerSecond": report.samplesPerSecond.rounded(),
                    "sinkLines": sinkLines, "exact": exact,
                ] as [String: Any])
            }
            if !exact { throw ExitCode.failure }
        }

        static func seconds(since start: ContinuousClock.Instant) -> Double {
            let d = ContinuousClock.now - start
            return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        }

        /// Counts newline-terminated lines, reading 1 MiB at a time.
        static func countLines(atPath path: String) throws -> Int {
            guard let handle = FileHandle(forReadingAtPath: path) else { return 0 }
            defer { try? handle.close() }
            var lines = 0
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                lines += chunk.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            }
            return lines
        }
    }
}
