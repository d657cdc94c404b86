import ArgumentParser
import Foundation
import StepSyncCLI
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing

@Suite("stepsync layer, chunks, status")
struct LayerCommandTests {
    static let origin: Int64 = 1_700_000_000_000  // 2023-11-14

    /// `count` samples of `steps` steps, one a minute from `start`.
    static func samples(from start: Int64, count: Int, steps: Double) -> [HealthSample] {
        (0..<count).map { i in
            HealthSample(uuid: UUID(), type: .stepCount, startMs: start + Int64(i) * Milliseconds.minute,
                         endMs: start + Int64(i) * Milliseconds.minute + 30_000, value: steps, unit: "count",
                         sourceName: "iPhone", sourceBundleId: "com.apple.health.test")
        }
    }

    func run(_ arguments: [String]) async throws {
        var command = try StepSyncCommand.parseAsRoot(arguments)
        if var asyncCommand = command as? AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    }

    @Test("layer, layer again (nothing changes), add later samples, layer appends only the new range")
    func layerTwiceThenAppend() async throws {
        let dir = TemporaryDirectory.uniquePath("stepsync-layer")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try StepStore(dataDirectory: DataDirectory(path: dir))
        try store.insert(Self.samples(from: Self.origin, count: 600, steps: 50))  // 30,000 steps

        try await run(["layer", "--data-dir", dir, "--max-steps", "1000", "--json"])
        let first = try store.intervals(of: .stepCount)
        #expect(first.count == 30)
        #expect(first.allSatisfy { $0.steps == 1_000 && $0.status == .pending })
        #expect(first.first?.range.start == Self.origin)
        #expect(first.last?.range.end == Self.origin + 599 * Milliseconds.minute + 1)

        try store.markSynced(first[0].id, atMs: Self.origin)
        _ = try store.markInFlight(first[1].id)
        try await run(["layer", "--data-dir", dir, "--max-steps", "1000"])
        let second = try store.intervals(of: .stepCount)
        #expect(second.map(\.id) == first.map(\.id))
        #expect(second.map(\.range) == first.map(\.range))
        #expect(second.map(\.status) == [.synced, .inFlight] + Array(repeating: .pending, count: 28))

        let later = Self.origin + 2 * Milliseconds.day
        try store.insert(Self.samples(from: later, count: 100, steps: 50))  // 5,000 more steps
        try await run(["layer", "--data-dir", dir, "--max-steps", "1000", "--json"])
        let third = try store.intervals(of: .stepCount)
        #expect(third.count == 35)
        #expect(Array(third.prefix(30)) == second)
        #expect(third[30].range.start == first.last!.range.end)
        #expect(third.reduce(0.0) { $0 + $1.steps } == 35_000)

        try await run(["chunks", "--data-dir", dir, "--status", "synced", "--json"])
        try await run(["status", "--data-dir", dir])
        #expect(try store.intervalSummary(of: .stepCount).synced == 1)
    }

    /// A data directory holding steps, heart rate, distance, sleep and workouts, 30 days from `origin`.
    static func mixedDataDirectory() throws -> (dir: String, samples: [HealthSample]) {
        let dir = TemporaryDirectory.uniquePath("stepsync-types")
        let store = try StepStore(dataDirectory: DataDirectory(path: dir))
        var samples: [HealthSample] = []
        func add(_ type: SampleType, _ count: Int, every: Int64, value: (Int) -> Double, unit: String, length: Int64) {
            for i in 0..<count {
                let start = Self.origin + Int64(i) * every
                samples.append(HealthSample(uuid: UUID(), type: type, startMs: start, endMs: start + length,
                                            value: value(i), unit: unit, sourceName: "Apple Watch",
                                            sourceBundleId: "com.apple.health.watch"))
            }
        }
        add(.stepCount, 600, every: Milliseconds.hour, value: { Double(100 + $0 % 7 * 50) }, unit: "count", length: 60_000)
        add(.heartRate, 900, every: 40 * Milliseconds.minute, value: { Double(60 + $0 % 50) }, unit: "count/min", length: 0)
        add(.distanceWalkingRunning, 300, every: 2 * Milliseconds.hour, value: { Double($0 % 4) / 4 }, unit: "km", length: 60_000)
        add(.sleepAnalysis, 30, every: Milliseconds.day, value: { Double($0 % 3) }, unit: "", length: 7 * Milliseconds.hour)
        add(.workout, 10, every: 3 * Milliseconds.day, value: { _ in 1_800 }, unit: "s", length: 30 * Milliseconds.minute)
        try store.insert(samples)
        return (dir, samples)
    }

    static func binary(_ arguments: [String]) async throws -> StepSyncProcess {
        let (status, process) = try await StepSyncProcess.run(arguments)
        #expect(status == 0, "stepsync \(arguments.joined(separator: " ")): \(process.stderr)")
        return process
    }

    /// A JSON number as a Double, whichever way JSONSerialization read it.
    static func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

    static func jsonArray(_ process: StepSyncProcess) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(process.stdout.utf8)) as? [[String: Any]])
    }

    @Test("layer partitions every type by its kind; chunks, status and stats show the types (the real binary)")
    func everyTypeThroughTheBinary() async throws {
        let (dir, samples) = try Self.mixedDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = ["--data-dir", dir]
        let layered = try await Self.binary(["layer", "--max-steps", "1000", "--max-samples", "100", "--json"] + data).json()
        let types = try #require(layered["types"] as? [String: [String: Any]])
        #expect(Set(types.keys) == Set(samples.map(\.type.rawValue)))
        // 600 step samples, 100–400 steps each: ⌈…÷ 1,000⌉ or so; 900 heart rates: 9 chunks of 100, no sum limit.
        #expect(types[SampleType.heartRate.rawValue]?["intervals"] as? Int == 9)
        #expect(types[SampleType.heartRate.rawValue]?["kind"] as? String == "discrete")
        #expect(types[SampleType.distanceWalkingRunning.rawValue]?["intervals"] as? Int == 3)
        #expect(types[SampleType.sleepAnalysis.rawValue]?["intervals"] as? Int == 1)
        #expect(types[SampleType.workout.rawValue]?["samples"] as? Int == 10)
        let stepTotal = samples.filter { $0.type == .stepCount }.reduce(0.0) { $0 + $1.value }
        #expect(Self.number(layered["steps"]) == stepTotal && Self.number(types[SampleType.stepCount.rawValue]?["steps"]) == stepTotal)
        #expect(layered["samples"] as? Int == samples.count)

        let chunks = try Self.jsonArray(try await Self.binary(["chunks", "--json"] + data))
        #expect(chunks.count == layered["intervals"] as? Int)
        #expect(Set(chunks.compactMap { $0["type"] as? String }) == Set(types.keys))
        let heart = try Self.jsonArray(try await Self.binary(["chunks", "--type", "HeartRate", "--json"] + data))
        #expect(heart.count == 9 && heart.allSatisfy { $0["type"] as? String == SampleType.heartRate.rawValue })
        #expect(heart.allSatisfy { $0["samples"] as? Int == 100 && $0["kind"] as? String == "backfill" && $0["sum"] == nil })
        #expect(chunks.filter { $0["type"] as? String == SampleType.stepCount.rawValue }
            .reduce(0.0) { $0 + (Self.number($1["steps"]) ?? 0) } == stepTotal)
        let table = try await Self.binary(["chunks"] + data).stdout
        #expect(table.contains("HeartRate") && table.contains("SleepAnalysis") && table.contains("backfill"))

        let status = try await Self.binary(["status", "--json"] + data).json()
        let statusTypes = try #require(status["types"] as? [String: [String: Any]])
        #expect(statusTypes[SampleType.heartRate.rawValue]?["pending"] as? Int == 9)
        #expect(status["samples"] as? Int == samples.count && Self.number(status["steps"]) == stepTotal)
        let statusTable = try await Self.binary(["status"] + data).stdout
        #expect(statusTable.contains("HeartRate") && statusTable.contains("total"))

        // A deleted day of heart rates becomes a heart-rate deletion interval, steps untouched.
        let day = ["--from", ISO8601Millis.format(Self.origin + Milliseconds.day),
                   "--to", ISO8601Millis.format(Self.origin + 2 * Milliseconds.day)]
        let deleted = try await Self.binary(["delete"] + day + ["--type", "HeartRate", "--yes", "--json"] + data).json()
        #expect(deleted["samples"] as? Int == 36 && deleted["steps"] as? Int == 0)
        let deletedTypes = try #require(deleted["types"] as? [String: Any])
        #expect(deletedTypes.count == 1 && Self.number(deletedTypes[SampleType.heartRate.rawValue]) == 36)
        let second = try await Self.binary(["layer", "--json"] + data).json()
        let secondTypes = try #require(second["types"] as? [String: [String: Any]])
        #expect(second["deletedSamples"] as? Int == 36 && second["intervals"] as? Int == 1)
        #expect(secondTypes[SampleType.heartRate.rawValue]?["deletionIntervals"] as? Int == 1)
        let deletions = try Self.jsonArray(try await Self.binary(["chunks", "--type", "HeartRate", "--status", "pending", "--json"] + data))
            .filter { $0["kind"] as? String == "deletions" }
        #expect(deletions.count == 1 && deletions.first?["samples"] as? Int == 36)
    }

    @Test("status shows the rejected samples by type and reason beside the intervals (text and --json, --type restricts)")
    func statusShowsRejected() async throws {
        let (dir, samples) = try Self.mixedDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = ["--data-dir", dir]
        let before = try await Self.binary(["status", "--json"] + data).json()
        #expect((before["rejected"] as? [String: Any])?["total"] as? Int == 0)
        _ = try await Self.binary(["layer"] + data)

        let steps = samples.filter { $0.type == .stepCount }, rates = samples.filter { $0.type == .heartRate }
        func rejected(_ sample: HealthSample, _ reason: String, by finder: RejectedSample.Finder) -> RejectedSample {
            RejectedSample(uuid: sample.uuid, type: sample.type, reason: reason, field: "value", detail: "bad value",
                           intervalId: 1, foundBy: finder, atMs: Self.origin)
        }
        let store = try StepStore(dataDirectory: DataDirectory(path: dir))
        try store.recordRejected([rejected(steps[0], "negative_value", by: .engine), rejected(steps[1], "negative_value", by: .engine),
                                  rejected(steps[2], "end_before_start", by: .engine), rejected(rates[0], "value_not_finite", by: .sink)])

        let status = try await Self.binary(["status", "--json"] + data).json()
        let all = try #require(status["rejected"] as? [String: Any])
        let types = try #require(all["types"] as? [String: [String: Any]])
        #expect(all["total"] as? Int == 4 && types.count == 2)
        #expect(types[SampleType.stepCount.rawValue]?["total"] as? Int == 3)
        #expect(types[SampleType.stepCount.rawValue]?["reasons"] as? [String: Int] == ["negative_value": 2, "end_before_start": 1])
        #expect(types[SampleType.heartRate.rawValue]?["reasons"] as? [String: Int] == ["value_not_finite": 1])
        #expect((status["types"] as? [String: Any])?.count == Set(samples.map(\.type)).count, "the intervals stay beside them")

        let heart = try await Self.binary(["status", "--type", "HeartRate", "--json"] + data).json()
        let heartRejected = try #require(heart["rejected"] as? [String: Any])
        #expect(heartRejected["total"] as? Int == 1 && (heartRejected["types"] as? [String: Any])?.keys.first == SampleType.heartRate.rawValue)

        let text = try await Self.binary(["status"] + data).stdout
        #expect(text.contains("rejected (invalid, left out of the sync): 4 samples"))
        let stepRow = text.split(separator: "\n").first { $0.contains("StepCount") && $0.contains("negative_value") }
        #expect(stepRow.map { $0.split(separator: " ").last == "2" } == true, "\(text)")
        #expect(text.contains("HeartRate") && text.contains("value_not_finite") && text.contains("total"))
    }

    @Test("stats shows per kind what means something: sums, min/average/max, total durations (text and --json)")
    func statsPerKind() async throws {
        let (dir, samples) = try Self.mixedDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let stats = try await Self.binary(["stats", "--json", "--data-dir", dir]).json()
        let stepTotal = samples.filter { $0.type == .stepCount }.reduce(0.0) { $0 + $1.value }
        #expect(stats["samples"] as? Int == samples.count && Self.number(stats["steps"]) == stepTotal)
        #expect(stats["first"] as? String == ISO8601Millis.format(Self.origin))
        let types = try #require(stats["types"] as? [String: [String: Any]])
        let steps = try #require(types[SampleType.stepCount.rawValue])
        #expect(steps["kind"] as? String == "cumulative" && Self.number(steps["sum"]) == stepTotal && steps["min"] == nil)
        let distance = try #require(types[SampleType.distanceWalkingRunning.rawValue])
        #expect(Self.number(distance["sum"]) == 112.5 && distance["units"] as? [String] == ["km"])
        let heart = try #require(types[SampleType.heartRate.rawValue])
        let rates = samples.filter { $0.type == .heartRate }.map(\.value)
        #expect(heart["kind"] as? String == "discrete" && heart["samples"] as? Int == 900 && heart["sum"] == nil)
        #expect(Self.number(heart["min"]) == 60 && Self.number(heart["max"]) == 109)
        #expect(Self.number(heart["average"]) == rates.reduce(0, +) / 900)
        let sleep = try #require(types[SampleType.sleepAnalysis.rawValue])
        #expect(sleep["kind"] as? String == "category" && Self.number(sleep["durationSeconds"]) == 30 * 7 * 3_600)
        #expect(sleep["sum"] == nil && sleep["average"] == nil)
        let workouts = try #require(types[SampleType.workout.rawValue])
        #expect(workouts["kind"] as? String == "workout" && Self.number(workouts["durationSeconds"]) == 10 * 1_800)
        let sources = try #require(heart["sources"] as? [[String: Any]])
        #expect(sources.count == 1 && sources[0]["source"] as? String == "Apple Watch" && sources[0]["unit"] as? String == "count/min")

        let text = try await Self.binary(["stats", "--data-dir", dir]).stdout
        #expect(text.contains("discrete (readings)") && text.contains("average") && text.contains("duration (h)"))
        #expect(text.contains("210"), "seven hours a night for thirty nights")
    }

    @Test("bad limits are refused before anything runs",
          arguments: [["--max-steps", "0"], ["--max-samples", "-3"], ["--max-sum", "Distance"], ["--max-sum", "X=-1"]])
    func badLimits(arguments: [String]) {
        #expect(throws: (any Error).self) { try StepSyncCommand.parseAsRoot(["layer"] + arguments) }
    }

    @Test("an unknown status is refused")
    func badStatus() {
        #expect(throws: (any Error).self) { try StepSyncCommand.parseAsRoot(["chunks", "--status", "done"]) }
    }
}
