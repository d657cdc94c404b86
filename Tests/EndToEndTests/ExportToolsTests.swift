import Foundation
import StepSyncCore
import StepSyncStore
import StepSyncTestSupport
import Testing

/// DuckDB and pandas from the venv `.ci/venv` makes (the real-client tests' venv, found the same way).
enum ExportTools {
    /// Whether the venv's Python has both packages (a directory each in its site-packages).
    static var installed: Bool {
        let lib = RealClients.venv + "/lib"
        guard FileManager.default.isExecutableFile(atPath: RealClients.python),
              let pythons = try? FileManager.default.contentsOfDirectory(atPath: lib) else { return false }
        return pythons.contains { python in
            ["duckdb", "pandas"].allSatisfy {
                FileManager.default.fileExists(atPath: "\(lib)/\(python)/site-packages/\($0)")
            }
        }
    }

    /// Runs where they are installed, and always in CI (where their absence fails the test).
    static var available: Bool { installed || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Reads every file of `files` (label → (path, format)) with DuckDB and pandas; prints per label and reader the
    /// row count, the mean of `value`, and how many `details` cells parse as JSON objects.
    static let script = #"""
        import json, sys
        import duckdb, pandas

        def details_objects(cells):
            n = 0
            for cell in cells:
                if isinstance(cell, str) and cell:
                    n += isinstance(json.loads(cell), dict)
                elif isinstance(cell, dict):
                    n += 1
            return n

        out = {}
        for label, (path, fmt) in json.loads(sys.argv[1]).items():
            if fmt == "csv":
                count, mean = duckdb.sql(f"SELECT count(*), avg(value) FROM read_csv_auto('{path}')").fetchall()[0]
                ddetails = duckdb.sql(f"SELECT count(details) FROM read_csv_auto('{path}')").fetchall()[0][0]
                frame = pandas.read_csv(path)
            else:
                count, mean = duckdb.sql(f"SELECT count(*), avg(value) FROM read_ndjson_auto('{path}')").fetchall()[0]
                ddetails = duckdb.sql(f"SELECT count(details) FROM read_json_auto('{path}', format='newline_delimited')").fetchall()[0][0]
                frame = pandas.read_json(path, lines=True)
            out[label] = {
                "duckdb": [count, mean, ddetails],
                "pandas": [int(len(frame)), float(frame["value"].mean()), details_objects(frame["details"])],
            }
        print(json.dumps(out, sort_keys=True))
        """#
}

/// Other people's software judges the export: DuckDB and pandas read `stepsync export --format csv`, `--format
/// ndjson` and the sink's `GET /export` CSV, each with its default reader, and find the store's row count and mean.
@Suite("DuckDB and pandas read the exports", .serialized, .enabled(if: ExportTools.available, "DuckDB and pandas (the venv .ci/venv makes) are needed; .ci/run installs them"))
struct ExportToolsTests {
    @Test("""
        read_csv_auto, read_ndjson_auto, pandas.read_csv and read_json(lines=True) on the CLI's CSV and NDJSON and the \
        sink's CSV: the store's count and mean of heart rate, and every workout's details a JSON object
        """)
    func toolsReadTheExports() async throws {
        #expect(ExportTools.installed, "run .ci/venv (it installs duckdb and pandas)")
        try await ExportCommandTests.withStore { dir, data in
            let (heartRate, mean) = try await ExportCommandTests.stats(.heartRate, data)
            let (workouts, _) = try await ExportCommandTests.stats(.workout, data)
            var files: [String: [String]] = [:]
            for (label, type, format) in [("hr-csv", "HeartRate", "csv"), ("hr-ndjson", "HeartRate", "ndjson"),
                                          ("w-csv", "workouts", "csv"), ("w-ndjson", "workouts", "ndjson")] {
                let path = "\(dir)/\(label).\(format)"
                let (status, run) = try await StepSyncProcess.run(["export", "--type", type, "--out", path] + data)
                #expect(status == 0, "\(run.stderr)")
                files[label] = [path, format]
            }

            // The sink's CSV, fetched with curl from a real `stepsync serve` after a sync.
            let token = "export-tools-token-0123456789"
            #expect(try await StepSyncProcess.run(["layer"] + data).status == 0)
            let serve = try StepSyncProcess(["serve", "--port", "0", "--data", dir + "/sink/steps.jsonl", "--token", token])
            defer { kill(serve.pid, SIGKILL) }
            let port = try await serve.listeningPort()
            let (synced, sync) = try await StepSyncProcess.run(["sync", "--server", "http://127.0.0.1:\(port)",
                                                                "--token", token, "--json"] + data)
            #expect(synced == 0, "\(sync.stderr)")
            let curl = try #require(RealClients.curl)
            for (label, type) in [("sink-hr-csv", "HKQuantityTypeIdentifierHeartRate"), ("sink-w-csv", "Workout")] {
                let path = "\(dir)/\(label).csv"
                _ = try await RealClients.run(curl, ["-fsS", "-o", path, "-H", "Authorization: Bearer \(token)",
                                                     "http://127.0.0.1:\(port)/export?type=\(type)&format=csv"])
                files[label] = [path, "csv"]
            }

            let arguments = String(decoding: try JSONSerialization.data(withJSONObject: files), as: UTF8.self)
            let output = try await RealClients.run(RealClients.python, ["-c", ExportTools.script, arguments]).stdout
            let answers = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: [String: [Double]]])
            #expect(answers.count == 6, "\(output)")
            for (label, readers) in answers.sorted(by: { $0.key < $1.key }) {
                let isHeartRate = label.contains("hr")
                for (reader, answer) in readers.sorted(by: { $0.key < $1.key }) {
                    #expect(answer.count == 3, "\(label) \(reader)")
                    guard answer.count == 3 else { continue }
                    #expect(Int(answer[0]) == (isHeartRate ? heartRate : workouts), "\(label) \(reader): \(answer)")
                    if isHeartRate {
                        #expect(abs(answer[1] - mean) <= 1e-9 * mean, "\(label) \(reader): mean \(answer[1]) vs \(mean)")
                    } else {
                        #expect(Int(answer[2]) == workouts, "\(label) \(reader): details \(answer)")
                    }
                }
            }
        }
    }
}
