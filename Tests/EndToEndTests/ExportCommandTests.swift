import AsyncHTTPClient
import Foundation
import NIOCore
import StepSyncCore
import StepSyncSink
import StepSyncStore
import StepSyncTestSupport
import Testing

/// `stepsync export` through the real binary: the store's rows, the same bytes as the sink's `GET /export`, written
/// atomically.
@Suite("stepsync export: the store's samples as CSV and NDJSON", .serialized)
struct ExportCommandTests {
    /// Ten weeks of realistic steps (iPhone and Watch), heart rate and workouts (details with quotes and commas).
    static func withStore<T>(_ body: (_ dir: String, _ data: [String]) async throws -> T) async throws -> T {
        let dir = TemporaryDirectory.uniquePath("stepsync-export")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try StepStore(dataDirectory: DataDirectory(path: dir + "/data"))
        try store.insert(Array(SampleGenerator(profile: .realistic, seed: 25,
                                               days: CivilDate(year: 2025, month: 3, day: 1)...CivilDate(year: 2025, month: 5, day: 9),
                                               types: [.steps, .heartRate, .workouts]).joined()))
        return try await body(dir, ["--data-dir", dir + "/data"])
    }

    /// The store's sample count and mean value of `type`, from `stats --json` (`sum`, or `average` for a discrete
    /// type).
    static func stats(_ type: SampleType, _ data: [String]) async throws -> (samples: Int, mean: Double) {
        let (status, process) = try await StepSyncProcess.run(["stats", "--json"] + data)
        #expect(status == 0, "\(process.stderr)")
        let types = try #require(try process.json()["types"] as? [String: [String: Any]])
        let entry = try #require(types[type.rawValue], "stats has no \(type)")
        let samples = try #require(entry["samples"] as? Int)
        if let average = (entry["average"] as? NSNumber)?.doubleValue { return (samples, average) }
        // Workouts and categories have neither: their mean is not asked for.
        return (samples, ((entry["sum"] as? NSNumber)?.doubleValue ?? .nan) / Double(max(samples, 1)))
    }

    /// The objects of an NDJSON file.
    static func ndjson(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test("CSV and NDJSON of a type hold the store's count and sum, every uuid once; --json conforms to its schema")
    func rowsAreTheStores() async throws {
        try await Self.withStore { dir, data in
            let (samples, mean) = try await Self.stats(.heartRate, data)
            let sum = mean * Double(samples)
            #expect(samples > 1_000)
            let csv = dir + "/hr.csv", nd = dir + "/hr.ndjson"
            let summary = try await JSONOutputSchemaTests.check("export", ["export", "--type", "heart-rate", "--out", csv, "--json"] + data)
            #expect(summary.object?["samples"] == .integer(Int64(samples)))
            #expect(summary.object?["format"] == .string("csv"))
            #expect(summary.object?["from"] == .null)
            let bytes = try #require(FileManager.default.contents(atPath: csv))
            #expect(summary.object?["bytes"] == .integer(Int64(bytes.count)))
            // The format follows the extension; the type is read in any case.
            let (status, run) = try await StepSyncProcess.run(["export", "--type", "HEARTRATE", "--out", nd] + data)
            #expect(status == 0, "\(run.stderr)")
            #expect(run.stdout.hasPrefix("Exported \(GroupedNumber.string(samples)) HeartRate samples as NDJSON"), "\(run.stdout)")

            let objects = try Self.ndjson(nd)
            #expect(objects.count == samples)
            let total = objects.reduce(0.0) { $0 + (($1["value"] as? NSNumber)?.doubleValue ?? .nan) }
            #expect(abs(total - sum) <= 1e-9 * abs(sum))
            #expect(Set(objects.compactMap { $0["uuid"] as? String }).count == samples)
            #expect(Set(objects[0].keys) == Set(ExportEncoder.columns))
            // Every row of both files, uuid for uuid, in the same (start) order.
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            #expect(lines.first.map(String.init) == ExportEncoder.columns.joined(separator: ","))
            #expect(lines.dropFirst().map { String($0.prefix(36)) } == objects.map { $0["uuid"] as? String ?? "" })
            let starts = objects.compactMap { $0["start"] as? String }
            #expect(starts == starts.sorted())

            // Workouts: details is an object in NDJSON, quoted JSON text in CSV.
            let workouts = dir + "/w.ndjson"
            #expect(try await StepSyncProcess.run(["export", "--type", "workouts", "--format", "ndjson", "--out", workouts] + data).status == 0)
            let workoutObjects = try Self.ndjson(workouts)
            #expect(!workoutObjects.isEmpty && workoutObjects.allSatisfy { $0["details"] is [String: Any] })
        }
    }

    @Test("--from/--to: dates are local days in --tz (to inclusive), instants UTC; exactly the rows starting inside")
    func range() async throws {
        try await Self.withStore { dir, data in
            let all = dir + "/all.ndjson", march = dir + "/march.ndjson", hour = dir + "/hour.ndjson"
            #expect(try await StepSyncProcess.run(["export", "--type", "steps", "--out", all] + data).status == 0)
            let (status, run) = try await StepSyncProcess.run(["export", "--type", "steps", "--from", "2025-03-10",
                                                               "--to", "2025-03-20", "--tz", "Europe/Berlin",
                                                               "--out", march, "--json"] + data)
            #expect(status == 0, "\(run.stderr)")
            let summary = try run.json()
            #expect(summary["from"] as? String == "2025-03-09T23:00:00.000Z")
            #expect(summary["to"] as? String == "2025-03-20T23:00:00.000Z")
            let inside = try Self.ndjson(all).filter {
                let start = $0["start"] as? String ?? ""
                return start >= "2025-03-09T23:00:00.000Z" && start < "2025-03-20T23:00:00.000Z"
            }
            let got = try Self.ndjson(march)
            #expect(!got.isEmpty && got.count == inside.count)
            #expect(got.map { $0["uuid"] as? String } == inside.map { $0["uuid"] as? String })
            #expect(summary["samples"] as? Int == got.count)
            #expect(try await StepSyncProcess.run(["export", "--type", "steps", "--from", "2025-03-10T08:00:00.000Z",
                                                   "--to", "2025-03-10T09:00:00.000Z", "--out", hour] + data).status == 0)
            #expect(try Self.ndjson(hour).allSatisfy { ($0["start"] as? String ?? "").hasPrefix("2025-03-10T08:") })
        }
    }

    @Test("--out - writes the same bytes to stdout and the summary to stderr; an existing file needs --force; a failure leaves no file")
    func output() async throws {
        try await Self.withStore { dir, data in
            let file = dir + "/steps.csv"
            #expect(try await StepSyncProcess.run(["export", "--type", "steps", "--out", file] + data).status == 0)
            let written = try #require(FileManager.default.contents(atPath: file))
            let (status, stdout) = try await StepSyncProcess.run(["export", "--type", "steps", "--format", "csv", "--out", "-"] + data)
            #expect(status == 0)
            #expect(Data(stdout.stdout.utf8) == written)
            #expect(stdout.stderr.contains("to stdout"), "\(stdout.stderr)")

            // Refused without --force: exit 1, the file untouched, no temporary file left.
            try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: file))
            let (refused, refusal) = try await StepSyncProcess.run(["export", "--type", "steps", "--out", file] + data)
            #expect(refused == 1)
            #expect(refusal.stderr.contains("--force"), "\(refusal.stderr)")
            #expect(FileManager.default.contents(atPath: file) == Data("keep me\n".utf8))
            #expect(try await StepSyncProcess.run(["export", "--type", "steps", "--out", file, "--force"] + data).status == 0)
            #expect(FileManager.default.contents(atPath: file) == written)

            // A directory that does not exist: exit 1 naming it, nothing created.
            let (failed, failure) = try await StepSyncProcess.run(["export", "--type", "steps", "--out", dir + "/none/x.csv"] + data)
            #expect(failed == 1)
            #expect(failure.stderr.contains("/none/"), "\(failure.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["data", "steps.csv"])

            // Refused before anything runs: --json with --out -, a bad --from.
            #expect(try await StepSyncProcess.run(["export", "--type", "steps", "--out", "-", "--json"] + data).status == 64)
            let (bad, badRun) = try await StepSyncProcess.run(["export", "--type", "steps", "--from", "May", "--out", "x"] + data)
            #expect(bad == 64)
            #expect(badRun.stderr.contains("--from \"May\""), "\(badRun.stderr)")
        }
    }

    @Test("CSV: names that would run as formulas come out as text (one leading '), the negative value as -3.5")
    func formulasNeutralised() async throws {
        let dir = TemporaryDirectory.uniquePath("stepsync-formula")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try StepStore(dataDirectory: DataDirectory(path: dir + "/data")).insert(FormulaCells.samples)
        let file = dir + "/hr.csv"
        let (status, run) = try await StepSyncProcess.run(["export", "--type", "HeartRate", "--format", "csv",
                                                           "--out", file, "--data-dir", dir + "/data"])
        #expect(status == 0, "\(run.stderr)")
        let cells = try await FormulaCells.read(file)
        #expect(cells.count == 2)
        for (sample, expected) in zip(FormulaCells.samples, FormulaCells.expected) {
            #expect(cells[sample.uuid.uuidString] == expected)
        }
    }

    @Test("the sink's GET /export of the synced heart rate and workouts has the CLI's header and rows in the CLI's order (start, uuid), all but the UTC offset the wire does not carry")
    func sinkAgrees() async throws {
        try await Self.withStore { dir, data in
            let token = "export-token-0123456789"
            #expect(try await StepSyncProcess.run(["layer"] + data).status == 0)
            let serve = try StepSyncProcess(["serve", "--port", "0", "--data", dir + "/sink/steps.jsonl", "--token", token])
            defer { kill(serve.pid, SIGKILL) }
            let port = try await serve.listeningPort()
            let (synced, sync) = try await StepSyncProcess.run(["sync", "--server", "http://127.0.0.1:\(port)", "--token", token,
                                                                "--json"] + data)
            #expect(synced == 0, "\(sync.stderr)")
            // Step counts travel in HealthStepsSync's /steps shape (uuid, dates, count, bundle id, device name), so
            // the sink's step rows lack the source name and the rest: only the /samples types are compared whole.
            for (type, format) in [("HeartRate", "csv"), ("Workout", "ndjson"), ("HeartRate", "ndjson"), ("Workout", "csv")] {
                let file = dir + "/cli.\(format)"
                #expect(try await StepSyncProcess.run(["export", "--type", type, "--format", format, "--out", file, "--force"]
                                                      + data).status == 0)
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/export?type=\(type)&format=\(format)")
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
                #expect(response.status == .ok)
                let body = String(buffer: try await response.body.collect(upTo: 256 << 20))
                let cli = try String(contentsOfFile: file, encoding: .utf8)
                let sinkLines = body.split(separator: "\n"), cliLines = cli.split(separator: "\n")
                #expect(sinkLines.count == cliLines.count && cliLines.count > 1, "\(type)")
                if format == "csv" { #expect(sinkLines.first == cliLines.first) }
                // Row for row the same, but for utcOffsetSeconds: the wire does not carry it, so the sink's is empty.
                // In the same order too (issue 32: the JSONL sink's were in arrival order).
                #expect(sinkLines.map { Self.withoutOffset($0, format) }
                        == cliLines.map { Self.withoutOffset($0, format) }, "\(type) \(format)")
                #expect(sinkLines.dropFirst(format == "csv" ? 1 : 0).allSatisfy {
                    Self.fields($0, format)[11] == (format == "csv" ? "" : "null")
                }, "\(type): the sink has no UTC offsets")
            }
        }
    }

    /// The 13 fields of an export line: CSV split at commas outside quotes (quotes kept), NDJSON as each value's JSON.
    static func fields(_ line: Substring, _ format: String) -> [String] {
        if format == "ndjson" {
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
            return ExportEncoder.columns.map { key in
                guard let value = object[key], !(value is NSNull) else { return "null" }
                let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
                return data.map { String(decoding: $0, as: UTF8.self) } ?? "?"
            }
        }
        var fields: [String] = [], current = "", quoted = false
        for c in line {
            if c == "\"" { quoted.toggle() }
            if c == ",", !quoted { fields.append(current); current = "" } else { current.append(c) }
        }
        fields.append(current)
        return fields
    }

    /// The line's fields with utcOffsetSeconds (column 12) left out, joined by U+0001.
    static func withoutOffset(_ line: Substring, _ format: String) -> String {
        var fields = Self.fields(line, format)
        if fields.count == 13 { fields.remove(at: 11) }
        return fields.joined(separator: "\u{1}")
    }
}
