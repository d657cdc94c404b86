import Foundation
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing

/// `stepsync export --out FILE` killed with `kill -9` while it writes: nothing it wrote is left behind, and the file
/// at `--out` is the previous complete one or none (``ExportOutput``: an unnamed `O_TMPFILE` on Linux; a named
/// temporary file elsewhere, which the next run removes once its writer is gone).
@Suite("An export killed with kill -9", .serialized)
struct ExportCrashTests {
    /// A store of `count` heart-rate samples with ≈ 2 KB of details each (≈ 2.3 KB a CSV row), in `dir/data`.
    static func store(_ dir: String, count: Int) throws -> [String] {
        let pad = String(repeating: "x", count: 2_000)
        let base = ISO8601Millis.parse("2025-01-01T00:00:00.000Z")!
        let samples = (0..<count).map { i in
            HealthSample(uuid: UUID(), type: .heartRate, startMs: base + Int64(i) * 60_000,
                         endMs: base + Int64(i) * 60_000, value: Double(60 + i % 50), unit: "count/min",
                         sourceName: "Watch", sourceBundleId: "com.apple.health",
                         details: #"{"metadata":{"pad":"\#(pad)"}}"#)
        }
        try StepStore(dataDirectory: DataDirectory(path: dir + "/data")).insert(samples)
        return ["--data-dir", dir + "/data"]
    }

    /// The bytes written so far to a file under `directory` that the process `pid` holds open (its unnamed
    /// temporary file shows in /proc as `directory/#… (deleted)`, a named one by its name); 0 when it holds none.
    static func bytesHeld(by pid: pid_t, under directory: String) -> Int {
        let fds = "/proc/\(pid)/fd"
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + entry),
                  target.hasPrefix(directory + "/") else { continue }
            var status = stat()
            if stat(fds + "/" + entry, &status) == 0 { return Int(status.st_size) }
        }
        return 0
    }

    /// Starts `export` stopped, runs it until it has written 4 MiB under `out`, and kills it with SIGKILL there.
    static func killMidExport(_ arguments: [String], out: String) async throws {
        let export = try StepSyncProcess(arguments)
        kill(export.pid, SIGSTOP)
        let pid = export.pid
        let caught = await ProcessPacer.continueUntil(export.process) {
            Self.bytesHeld(by: pid, under: out) > 4 << 20
        }
        kill(export.pid, SIGKILL)
        _ = try await export.wait()
        #expect(caught, "the export ended before it wrote 4 MiB: \(export.stderr)")
    }

    @Test("kill -9 mid-export: no temporary file is left, --out is absent or the previous complete file; the next run writes it whole")
    func killNineMidExport() async throws {
        let dir = TemporaryDirectory.uniquePath("stepsync-export-crash")
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = try Self.store(dir, count: 20_000)
        let file = out + "/hr.csv"
        let export = ["export", "--type", "HeartRate", "--out", file] + data

        try await Self.killMidExport(export, out: out)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [])

        let (status, run) = try await StepSyncProcess.run(export)
        #expect(status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["hr.csv"])
        let complete = try #require(FileManager.default.contents(atPath: file))
        #expect(complete.count > 40 << 20)
        #expect(String(decoding: complete.suffix(3), as: UTF8.self) == "}\"\n")

        // Killed while replacing it (--force): the previous complete file stays, alone.
        try await Self.killMidExport(export + ["--force"], out: out)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["hr.csv"])
        #expect(FileManager.default.contents(atPath: file) == complete)
    }

    @Test("a named temporary file a killed export left (its process gone) is removed by the next export to the same file; a live writer's and another file's are kept")
    func staleTemporaryRemoved() async throws {
        let dir = TemporaryDirectory.uniquePath("stepsync-export-stale")
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let data = try Self.store(dir, count: 10)
        // A pid that is gone: a child that ended and was reaped.
        let ended = try ChildProcess("/bin/true", [])
        while ended.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        let gone = ended.processIdentifier
        #expect(kill(gone, 0) == -1 && errno == ESRCH)
        let stale = out + "/.hr.csv.\(gone).tmp", live = out + "/.hr.csv.\(getpid()).tmp", other = out + "/.steps.csv.\(gone).tmp"
        for path in [stale, live, other] { try Data("partial,row\n".utf8).write(to: URL(fileURLWithPath: path)) }

        let (status, run) = try await StepSyncProcess.run(["export", "--type", "HeartRate", "--out", out + "/hr.csv"] + data)
        #expect(status == 0, "\(run.stderr)")
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: out))
                == ["hr.csv", ".hr.csv.\(getpid()).tmp", ".steps.csv.\(gone).tmp"])
    }
}
