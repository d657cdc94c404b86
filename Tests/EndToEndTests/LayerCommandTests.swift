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
        let dir = NSTemporaryDirectory() + "stepsync-layer-\(UUID().uuidString)"
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

    @Test("bad limits are refused before anything runs", arguments: [["--max-steps", "0"], ["--max-samples", "-3"]])
    func badLimits(arguments: [String]) {
        #expect(throws: (any Error).self) { try StepSyncCommand.parseAsRoot(["layer"] + arguments) }
    }

    @Test("an unknown status is refused")
    func badStatus() {
        #expect(throws: (any Error).self) { try StepSyncCommand.parseAsRoot(["chunks", "--status", "done"]) }
    }
}
