import Foundation
import StepSyncCore

/// Samples whose text cells would run as spreadsheet formulas (names any app may give its source, version or device),
/// and Python's `csv` module to read an export back cell for cell, as a spreadsheet import would split it.
public enum FormulaCells {
    /// Two heart-rate samples: the first with the OWASP examples as source, version, device and model, the second
    /// with `-2+3`, a tab and a CR start, and a negative value (a number, which stays a number).
    public static let samples: [HealthSample] = [
        HealthSample(uuid: UUID(uuidString: "00000000-0000-4000-8000-00000000F001")!, type: .heartRate,
                     startMs: 1_746_921_600_000, endMs: 1_746_921_600_000, value: 72, unit: "count/min",
                     sourceName: #"=HYPERLINK("http://x","y")"#, sourceBundleId: "com.example.app",
                     sourceVersion: "+1+1", deviceName: "@SUM(1,1)", deviceModel: "=cmd|' /C calc'!A0"),
        HealthSample(uuid: UUID(uuidString: "00000000-0000-4000-8000-00000000F002")!, type: .heartRate,
                     startMs: 1_746_922_200_000, endMs: 1_746_922_200_000, value: -3.5, unit: "count/min",
                     sourceName: "-2+3", sourceBundleId: "com.example.app", sourceVersion: "\tTabbed",
                     deviceName: "\rReturn", deviceModel: "Watch6,2"),
    ]

    /// The cells `source, sourceVersion, device, deviceModel, value` of ``samples``' rows as an export must hold
    /// them: each text neutralised with one leading `'`, the numbers as numbers.
    public static let expected: [[String]] = [
        [#"'=HYPERLINK("http://x","y")"#, "'+1+1", "'@SUM(1,1)", "'=cmd|' /C calc'!A0", "72"],
        ["'-2+3", "'\tTabbed", "'\rReturn", "Watch6,2", "-3.5"],
    ]

    /// The cells `source, sourceVersion, device, deviceModel, value` of every data row of the CSV file at `path`
    /// (keyed by uuid), as Python's `csv.reader` splits them (`newline=''`, as its documentation asks).
    public static func read(_ path: String) async throws -> [String: [String]] {
        let script = """
            import csv, json, sys
            with open(sys.argv[1], newline='') as f:
                rows = list(csv.reader(f))
            head = rows[0]
            cols = [head.index(c) for c in ("source", "sourceVersion", "device", "deviceModel", "value")]
            print(json.dumps({r[0]: [r[i] for i in cols] for r in rows[1:]}))
            """
        let out = path + ".cells.json"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: out + ".err", contents: nil)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let python = try ChildProcess("/usr/bin/python3", ["-c", script, path], stdout: out, stderr: out + ".err")
        defer { try? FileManager.default.removeItem(atPath: out + ".err") }
        let deadline = ContinuousClock.now + .seconds(60)
        while python.isRunning {
            guard ContinuousClock.now < deadline else {
                kill(python.processIdentifier, SIGKILL)
                throw SinkHarness.HarnessError(message: "python3 did not finish reading \(path)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let data = FileManager.default.contents(atPath: out) ?? Data()
        guard python.terminationStatus == 0,
              let cells = try JSONSerialization.jsonObject(with: data) as? [String: [String]]
        else {
            let error = (try? String(contentsOfFile: out + ".err", encoding: .utf8)) ?? ""
            throw SinkHarness.HarnessError(message: "python3 csv could not read \(path): \(error)")
        }
        return cells
    }
}
