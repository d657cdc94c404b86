import Foundation
import StepSyncCore
import StepSyncStore
import Testing
@testable import StepSyncImport

/// Three good step records (sum 600) then whatever the case puts after them.
private let goodRecords = F.record("HKQuantityTypeIdentifierStepCount", value: "100",
                                   start: "2020-03-01 08:00:00 +0100", end: "2020-03-01 08:10:00 +0100")
    + F.record("HKQuantityTypeIdentifierStepCount", value: "200",
               start: "2020-03-01 09:00:00 +0100", end: "2020-03-01 09:10:00 +0100")
    + F.record("HKQuantityTypeIdentifierStepCount", value: "300",
               start: "2020-03-01 10:00:00 +0100", end: "2020-03-01 10:10:00 +0100")

/// A bad input: how to write it, and what the error must say.
struct BadInput: CustomTestStringConvertible, Sendable {
    let name: String
    /// Writes the file into the directory; returns its path and the fragments the message must hold.
    let make: @Sendable (URL) throws -> (path: String, expected: [String])
    var testDescription: String { name }
}

private let badInputs: [BadInput] = [
    BadInput(name: "neither zip nor XML") { dir in
        let path = try F.write("date,steps\n2020-03-01,100\n", named: "steps.csv", in: dir)
        return (path, ["steps.csv", "not a zip archive or an XML file"])
    },
    BadInput(name: "XML that is not a Health export") { dir in
        let path = try F.write("<?xml version=\"1.0\"?>\n<html><body/></html>\n", named: "export.xml", in: dir)
        return (path, ["export.xml line 2", "not <HealthData>"])
    },
    BadInput(name: "truncated XML (cut inside a record)") { dir in
        let text = F.document(.v14, body: goodRecords + F.record("HKQuantityTypeIdentifierStepCount", value: "5",
            start: "2020-03-02 08:00:00 +0100", end: "2020-03-02 08:10:00 +0100"))
        let cut = String(text[..<text.range(of: "2020-03-02 08:10")!.lowerBound])
        let path = try F.write(cut, named: "export.xml", in: dir)
        // The cut record is the last line; the error points at its start.
        return (path, ["export.xml line \(cut.components(separatedBy: "\n").count)", "truncated"])
    },
    BadInput(name: "truncated XML (cut between records)") { dir in
        let text = F.document(.v14, body: goodRecords, close: false)
        let path = try F.write(text, named: "export.xml", in: dir)
        return (path, ["export.xml line", "ends inside <HealthData>", "truncated"])
    },
    BadInput(name: "truncated zip") { dir in
        let zip = try F.zip([("apple_health_export/export.xml", F.document(.v14, body: goodRecords))],
                            named: "whole.zip", in: dir)
        let data = try Data(contentsOf: URL(fileURLWithPath: zip))
        let path = dir.appendingPathComponent("export.zip").path
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
        return (path, ["export.zip", "truncated"])
    },
    BadInput(name: "a zip with no Health export") { dir in
        let path = try F.zip([("apple_health_export/export_cda.xml", "<?xml version=\"1.0\"?><ClinicalDocument/>")],
                             named: "export.zip", in: dir)
        return (path, ["export.zip", "no Apple Health export"])
    },
    BadInput(name: "a zip whose export entry fails its CRC-32") { dir in
        let zip = try F.zip([("apple_health_export/export.xml", F.document(.v14, body: goodRecords))],
                            named: "export.zip", in: dir)
        var data = try Data(contentsOf: URL(fileURLWithPath: zip))
        // The central directory's CRC-32 of the entry (what the inflated bytes are checked against) is 16 bytes
        // after its signature PK\1\2.
        let signature = Data([0x50, 0x4B, 0x01, 0x02])
        let header = try #require(data.range(of: signature)).lowerBound
        data[header + 16] ^= 0xFF
        try data.write(to: URL(fileURLWithPath: zip))
        return (zip, ["export.zip: apple_health_export/export.xml", "checksum does not match", "damaged"])
    },
    BadInput(name: "a tag that never closes") { dir in
        let text = F.document(.v14, body: goodRecords + " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Broken Phone\"\n")
        let path = try F.write(text, named: "export.xml", in: dir)
        // The `<Record` runs on into `</HealthData>`, whose name is then read as an attribute.
        return (path, ["export.xml line \(line(of: "Broken Phone", in: text))", "an attribute is not written name=\"value\""])
    },
    BadInput(name: "an element that never closes") { dir in
        let text = F.document(.v14, body: goodRecords + " <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" sourceName=\"x\" startDate=\"2020-03-02 08:00:00 +0100\" endDate=\"2020-03-02 08:10:00 +0100\">\n")
        let path = try F.write(text, named: "export.xml", in: dir)
        return (path, ["export.xml line \(line(of: "</HealthData>", in: text))", "</HealthData> does not close <Workout>"])
    },
    BadInput(name: "mismatched end tag") { dir in
        let text = F.document(.v14, body: goodRecords + " <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" sourceName=\"x\" startDate=\"2020-03-02 08:00:00 +0100\" endDate=\"2020-03-02 08:10:00 +0100\">\n </Record>\n")
        let path = try F.write(text, named: "export.xml", in: dir)
        return (path, ["export.xml line \(line(of: "</Record>", in: text))", "</Record> does not close <Workout>"])
    },
]

@Suite("Bad input is rejected cleanly")
struct BadInputTests {
    @Test("each bad input names the file (and line) and leaves the store as it was", arguments: badInputs)
    func rejected(_ input: BadInput) throws {
        let w = try Workspace()
        // The store already holds an import; the bad one must not add to it or change it.
        _ = try w.importExport(try F.write(F.document(.v14, body: mainBody), named: "before.xml", in: w.directory))
        let unchanged = try w.snapshot()

        let (path, expected) = try input.make(w.directory)
        let error = try #require(throws: ImportError.self) { try w.importExport(path) }
        #expect(!error.message.contains("--strict"))

        for fragment in expected {
            #expect(error.message.contains(fragment), "\(error.message) should contain \(fragment)")
        }
        #expect(try w.snapshot() == unchanged)
        // --strict changes nothing about structural damage: the same refusal.
        let strictError = try #require(throws: ImportError.self) { try w.importExport(path, strict: true) }
        #expect(strictError.message == error.message)
        #expect(try w.snapshot() == unchanged)
    }
}
