import ArgumentParser
import Foundation
import StepSyncCLI
import StepSyncCore
import StepSyncStore
import Testing

@Suite("stepsync generate")
struct GenerateCommandTests {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("stepsync-generate-\(UUID().uuidString)")
    }

    static func run(_ arguments: [String]) async throws {
        var command = try StepSyncCommand.parseAsRoot(arguments)
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            try command.run()
        }
    }

    static func contents(of dir: URL) throws -> [HealthSample] {
        let store = try StepStore(dataDirectory: DataDirectory(path: dir.path))
        var out: [HealthSample] = []
        try store.forEachSamplePage(of: .stepCount, in: TimeRange(start: 0, end: 4_102_444_800_000)) { out += $0 }
        return out
    }

    // The seed profile keeps this fast in a debug build; the realistic profile's determinism is shown in
    // GeneratorTests and GenerateIntoStoreTests.
    @Test("Running twice with the same arguments into empty data dirs gives identical samples")
    func twiceIdentical() async throws {
        let profile = "seed"
        let one = Self.temporaryDirectory()
        let two = Self.temporaryDirectory()
        defer { for d in [one, two] { try? FileManager.default.removeItem(at: d) } }
        let args = ["generate", "--years", "2", "--seed", "7", "--profile", profile, "--end", "2024-11-30", "--json"]
        try await Self.run(args + ["--data-dir", one.path])
        try await Self.run(args + ["--data-dir", two.path])
        let a = try Self.contents(of: one)
        let b = try Self.contents(of: two)
        #expect(a.count > 4_000)
        #expect(a == b)
        #expect(a.first.map { EuropeBerlinTime.localDate(atUTCMs: $0.startMs) >= CivilDate(year: 2022, month: 12, day: 1) } == true)
        #expect(a.last.map { EuropeBerlinTime.localDate(atUTCMs: $0.startMs) <= CivilDate(year: 2024, month: 11, day: 30) } == true)
        // The same again into a filled store only finds duplicates.
        try await Self.run(args + ["--data-dir", one.path])
        #expect(try Self.contents(of: one).count == a.count)
    }

    @Test("Bad arguments are refused before anything runs, naming the problem", arguments: [
        (["--years", "0"], "--years"),
        (["--years", "-3"], "--years"),
        (["--end", "2024-02-30"], "--end"),
        (["--end", "yesterday"], "--end"),
        (["--profile", "bogus"], "bogus"),
        (["--seed", "-1"], "seed"),
    ])
    func badArguments(extra: [String], named: String) throws {
        let dir = Self.temporaryDirectory()
        do {
            _ = try StepSyncCommand.parseAsRoot(["generate", "--data-dir", dir.path] + extra)
            Issue.record("\(extra) was accepted")
        } catch {
            #expect(StepSyncCommand.exitCode(for: error) != .success)
            #expect(StepSyncCommand.message(for: error).contains(named), "\(StepSyncCommand.message(for: error))")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path))
    }

    @Test("A data dir that cannot be created fails with a message naming it")
    func unwritableDataDirectory() async throws {
        let parent = Self.temporaryDirectory()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        let blocker = parent.appendingPathComponent("not-a-dir")
        try Data("x".utf8).write(to: blocker)
        let dataDir = blocker.appendingPathComponent("data").path
        do {
            try await Self.run(["generate", "--years", "1", "--profile", "seed", "--data-dir", dataDir, "--json"])
            Issue.record("generate into \(dataDir) succeeded")
        } catch {
            #expect(StepSyncCommand.exitCode(for: error) != .success)
            #expect(StepSyncCommand.message(for: error).contains(dataDir))
        }
        #expect(!FileManager.default.fileExists(atPath: dataDir))
    }
}
