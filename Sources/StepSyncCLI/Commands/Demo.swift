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
            abstract: "Run the whole job on a fresh temporary data directory: generate → layer → serve → sync → check, every type.",
            discussion: """
                Generates --years of synthetic iPhone + Apple Watch history (every type by default: steps, distance, \
                heart rate, HRV, energy, flights, sleep, mindful sessions, workouts), layers each type into bounded \
                intervals (steps: ≤ 10,000 steps and ≤ 5,000 samples; other types: ≤ 5,000 samples), starts the \
                bundled sink in this process on an ephemeral loopback port (durable acknowledgements on), syncs with \
                --concurrency tasks, checks per type that the sink holds exactly the store's uuids, and prints the \
                figures. The temporary directory is removed at the end unless --keep is given. Ctrl-C pauses the sync. \
                Exits non-zero unless every type is exact.

                Examples:
                  stepsync demo                  # ten years, every type
                  stepsync demo --types steps    # the steps-only decade (the benchmark)
                  stepsync demo --years 1 --json
                """)

        @OptionGroup var generation: GeneratorOptions
        var years: Int { generation.years }
        var seed: UInt64 { generation.seed }
        var profile: GeneratorProfile { generation.profile }
        var types: String { generation.types ?? "all" }

        @OptionGroup var tuning: SyncTuningOptions

        @Flag(help: "Keep the temporary data directory and print where it is.")
        var keep = false

        @Flag(help: "Print one JSON object with the figures instead of a report.")
        var json = false

        func validate() throws {
            _ = try Generate.resolveTypes(types, profile: profile)
        }

        /// What the demo found for one type.
        struct TypeFigures {
            var type: SampleType
            var samples = 0, steps = 0.0
            var intervals = 0, largestSteps = 0.0, oversize = 0
            var store = UUIDSetDigest()
            var sink = UUIDSetDigest()
            var exact: Bool { store == sink && store.count == samples }
        }

        func run() async throws {
            // Before any other thread allocates: the client and the sink share this process (its peak is the figure).
            if ProcessInfo.processInfo.environment["STEPSYNC_DEMO_MALLOC"] != "default" {
                ProcessMemory.limitAllocatorRetention()
            }
            let selected = try Generate.resolveTypes(types, profile: profile)
            let root = (NSTemporaryDirectory() as NSString).appendingPathComponent("stepsync-demo-\(UUID().uuidString.prefix(8))")
            let directory = DataDirectory(path: root)
            defer { if !keep { try? FileManager.default.removeItem(atPath: root) } }
            let store = try StepStore(dataDirectory: directory)
            let quiet = json
            let say: (String) -> Void = { line in if !quiet { print(line) } }
            let logger = PlainLogHandler.logger("stepsync.demo", level: .warning)
            say("stepsync demo in \(root)")
            // Resident and peak memory at each stage's end (the peak is the process's so far: the first stage whose
            // figure is the final peak is where it was reached).
            var memory: [(stage: String, figures: ProcessMemory)] = []

            // 1. Generate.
            let nowMs = try Now.ms()
            let generator = SampleGenerator(profile: profile, seed: seed, years: years, end: Now.utcDate(nowMs), types: selected)
            let generated = try Generate.generate(generator, into: store, progress: !json, notAfterMs: nowMs)
            var figures = Self.ordered(generated.perType.keys).map { type in
                TypeFigures(type: type, samples: generated.perType[type]?.inserted ?? 0,
                            steps: type == .stepCount ? generated.perType[type]?.insertedSum ?? 0 : 0)
            }
            say("1. generate  \(Format.number(generated.summary.inserted)) samples of \(figures.count) "
                + "type\(figures.count == 1 ? "" : "s"), \(Format.number(generated.summary.insertedSteps)) steps, "
                + "\(generated.days) days (\(profile.rawValue), seed \(seed)) in \(Format.duration(generated.seconds)) "
                + "— \(Format.number(Int(generated.samplesPerSecond))) samples/s")

            // The writer's page cache is full of the decade just written, and nothing below needs it: give it back
            // (the demo's peak memory is otherwise that cache plus everything that follows).
            memory.append(("generate", ProcessMemory.now()))
            store.releaseMemory()

            // 2. Layer every type in one run, as `stepsync layer` does: one snapshot, one commit.
            let layerElapsed = TimeSource.system.stopwatch()
            let layered = try store.layer(types: Set(figures.map(\.type)), limits: LayeringLimits())
            let layerSeconds = layerElapsed().inSeconds
            memory.append(("layer", ProcessMemory.now()))
            let queries = layered.queries
            for index in figures.indices {
                let intervals = layered.plan[figures[index].type]?.intervals ?? []
                figures[index].intervals = intervals.count
                figures[index].largestSteps = intervals.map(\.steps).max() ?? 0
                figures[index].oversize = intervals.filter(\.oversize).count
            }
            let intervals = figures.reduce(0) { $0 + $1.intervals }
            let stepFigures = figures.first { $0.type == .stepCount }
            let lowerBound = Int(((stepFigures?.steps ?? 0) / 10_000).rounded(.up))
            say("2. layer     \(Format.number(intervals)) intervals"
                + (stepFigures.map { " (steps: \(Format.number($0.intervals)), lower bound \(Format.number(lowerBound)), largest \(Format.number($0.largestSteps)) steps)" } ?? "")
                + ", \(figures.reduce(0) { $0 + $1.oversize }) oversize, \(queries) statistics queries in \(Format.duration(layerSeconds))")

            // 3. Serve, 4. sync, and read back what the sink holds, in this process.
            let sinkPath = directory.sinkDataPath
            let sinkConfiguration = SinkConfiguration(host: "127.0.0.1", port: 0, dataPath: sinkPath, time: .system)
            try FileManager.default.createDirectory(atPath: (sinkPath as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            let storage = try JSONLStorage(stepsPath: sinkPath, durable: true, time: .system, logger: logger)
            let configuration = SyncConfiguration(tuning.run(oneRequestPerLane: true))
            let stop = SyncStop()
            let checkedTypes = figures.map(\.type)
            let (report, syncCPUSeconds, sinkDigests, checkSeconds, syncMemory, sinkTables) = try await SignalHandlers.withStopOnSignals(stop) {
                try await SinkServer.withRunningSink(configuration: sinkConfiguration, storage: storage,
                                                     authenticator: SharedTokenAuthenticator(token: nil), logger: logger) { port in
                    if !quiet { print("3. serve     sink on http://127.0.0.1:\(port), appending to \(root) (fdatasync per group commit)") }
                    let cpuBefore = ProcessMemory.cpuSeconds()
                    let report = try await ReportedSync.run(store: store, server: "http://127.0.0.1:\(port)",
                                                            configuration: configuration, stop: stop,
                                                            showProgress: !quiet, logger: logger)
                    let syncCPUSeconds = ProcessMemory.cpuSeconds() - cpuBefore
                    let syncMemory = ProcessMemory.now()
                    let sinkTables = await storage.tableBytes()
                    let checkElapsed = TimeSource.system.stopwatch()
                    var digests: [SampleType: UUIDSetDigest] = [:]
                    // Reading back takes seconds (a minute in a debug build): a bar, or a line, after the first.
                    var checking = ProgressReporter(label: "types read back from the sink", enabled: !quiet, showAfter: 1, time: .system)
                    for (done, type) in checkedTypes.enumerated() {
                        digests[type] = try await Self.sinkDigest(of: type, in: storage)
                        checking.update(done: Int64(done + 1), total: Int64(checkedTypes.count), force: true)
                    }
                    checking.finish()
                    return (report, syncCPUSeconds, digests, checkElapsed().inSeconds, syncMemory, sinkTables)
                }
            }
            memory.append(("sync", syncMemory))
            memory.append(("sinkCheck", ProcessMemory.now()))
            say("4. sync      \(Format.number(report.synced)) intervals, \(Format.number(report.samples)) samples "
                + "(\(Format.number(report.inserted)) inserted, \(Format.number(report.duplicates)) duplicates) "
                + "with \(configuration.run.concurrency) concurrent tasks in \(Format.duration(report.seconds)) "
                + "— \(Format.number(report.samplesPerSecond.rounded())) samples/s, "
                + "\(Format.duration(syncCPUSeconds)) of CPU (client, sink and SQLite)")

            // 5. Check, type by type: the sink holds exactly the store's uuids.
            let storeCheckElapsed = TimeSource.system.stopwatch()
            var checking = ProgressReporter(label: "types read back from the store", enabled: !quiet, showAfter: 1, time: .system)
            for index in figures.indices {
                figures[index].sink = sinkDigests[figures[index].type] ?? UUIDSetDigest()
                var digest = UUIDSetDigest()
                try store.forEachSamplePage(of: figures[index].type, in: LayeringEngine.domain, pageSize: 10_000) { digest.add($0) }
                figures[index].store = digest
                checking.update(done: Int64(index + 1), total: Int64(figures.count), force: true)
            }
            checking.finish()
            let verifySeconds = checkSeconds + storeCheckElapsed().inSeconds
            memory.append(("storeCheck", ProcessMemory.now()))
            let exact = report.isComplete && figures.allSatisfy(\.exact)
                && report.inserted == figures.reduce(0) { $0 + $1.samples }
            say("5. check     \(exact ? "exact" : "MISMATCH"): per type, the sink's uuids "
                + "\(exact ? "equal" : "do not all equal") the store's (read back in \(Format.duration(verifySeconds)))")
            say(Self.table(figures))
            say("   peak memory \(Format.number(Int(ProcessMemory.peakResidentMegabytes().rounded()))) MB; at each stage's end "
                + memory.map { "\($0.stage) \(Int($0.figures.residentMegabytes.rounded()))" }.joined(separator: ", ")
                + " MB resident; the sink's index and line tables \(Format.number(sinkTables.total >> 20)) MB")
            if keep { say("kept \(root)") }

            if json {
                try JSONOutput.print(DemoReport(figures: StageFigures(
                    dataDir: JSONNullable(keep ? root : nil), profile: profile.rawValue, seed: seed, years: years,
                    concurrency: configuration.run.concurrency, requestSamples: configuration.run.maxSamplesPerRequest,
                    samples: figures.reduce(0) { $0 + $1.samples }, intervals: intervals, lowerBound: lowerBound,
                    queries: queries, steps: Int64((stepFigures?.steps ?? 0).rounded()),
                    generateSeconds: generated.seconds, largestSteps: stepFigures?.largestSteps ?? 0,
                    layerSeconds: layerSeconds, syncCPUSeconds: syncCPUSeconds,
                    maxRSSMegabytes: ProcessMemory.peakResidentMegabytes(), checkSeconds: verifySeconds,
                    memory: Dictionary(uniqueKeysWithValues: memory.map { ($0.stage, $0.figures.json) }),
                    sinkIndexBytes: sinkTables.index, sinkSlotBytes: sinkTables.slots,
                    sinkSamples: figures.reduce(0) { $0 + $1.sink.count }, exact: exact,
                    types: Dictionary(uniqueKeysWithValues: figures.map { ($0.type.rawValue, TypeEntry($0)) })),
                    sync: SyncFigures(report)))
            }
            if !exact { throw ExitCode.failure }
        }

        /// Step counts first, then the other types by name.
        static func ordered(_ types: some Sequence<SampleType>) -> [SampleType] {
            types.sorted { a, b in a == .stepCount ? b != .stepCount : b == .stepCount ? false : a.shortName < b.shortName }
        }

        /// The uuids of `type` the sink's storage holds, read page by page (memory: one page).
        static func sinkDigest(of type: SampleType, in storage: JSONLStorage) async throws -> UUIDSetDigest {
            var digest = UUIDSetDigest()
            var cursor: String?
            repeat {
                let page = try await storage.page(SamplePageQuery(type: type, cursor: cursor, limit: 10_000, maxBytes: 8 << 20),
                                                  for: .single)
                digest.add(page.samples)
                cursor = page.nextCursor
            } while cursor != nil
            return digest
        }

        /// One row per type: samples, intervals, the sink's count and the verdict (and steps for step counts).
        static func table(_ figures: [TypeFigures]) -> String {
            func pad(_ s: String, _ width: Int, right: Bool = true) -> String {
                s.count >= width ? s : right ? String(repeating: " ", count: width - s.count) + s
                    : s + String(repeating: " ", count: width - s.count)
            }
            var lines = ["   " + pad("type", 26, right: false) + pad("samples", 11) + pad("intervals", 11) + pad("in sink", 11) + "  check"]
            for f in figures {
                lines.append("   " + pad(f.type == .workout ? "Workout" : f.type.shortName, 26, right: false) + pad(Format.number(f.samples), 11)
                             + pad(Format.number(f.intervals), 11) + pad(Format.number(f.sink.count), 11)
                             + "  " + (f.exact ? "exact" : "MISMATCH")
                             + (f.type == .stepCount ? "  (\(Format.number(f.steps)) steps)" : ""))
            }
            return lines.joined(separator: "\n")
        }
    }
}
