import Foundation
import StepSyncCore
import Testing

@Suite("export rows: RFC 4180 CSV, NDJSON, the start range")
struct ExportEncoderTests {
    static let heartRate = HealthSample(
        uuid: UUID(uuidString: "0b1e6a4c-8f8e-4c1f-9b7a-2b7e3c1d5a10")!, type: .heartRate,
        startMs: ISO8601Millis.parse("2025-05-11T16:27:22.000Z")!, endMs: ISO8601Millis.parse("2025-05-11T16:27:22.500Z")!,
        utcOffsetSeconds: 7200, value: 72, unit: "count/min", sourceName: "Anna's Apple Watch",
        sourceBundleId: "com.apple.health", sourceVersion: "10.1", deviceName: "Apple Watch", deviceModel: "Watch6,2",
        details: #"{"metadata":{"HKMetadataKeyHeartRateMotionContext":"1"}}"#)

    static let bare = HealthSample(
        uuid: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!, type: .stepCount, startMs: 0, endMs: 60_000,
        value: 12.5, unit: "count", sourceName: "iPhone", sourceBundleId: "com.apple.health")

    @Test("a CSV field is quoted only when it holds a comma, a quote, CR or LF, or starts or ends with a space",
          arguments: [
              ("iPhone", "iPhone"), ("Anna's Apple Watch", "Anna's Apple Watch"), ("Watch6,2", "\"Watch6,2\""),
              (#"say "hi""#, #""say ""hi""""#), ("two\nlines", "\"two\nlines\""), ("cr\r", "\"cr\r\""),
              (" padded", "\" padded\""), ("", ""), ("µV, Sinusrhythmus", "\"µV, Sinusrhythmus\""),
          ])
    func csvQuoting(text: String, field: String) {
        var out: [UInt8] = []
        CSVField.append(text, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == field)
    }

    @Test("a text cell starting with = + - @, tab or CR gets one leading ' (inside the quotes when it needs them)",
          arguments: [
              (#"=HYPERLINK("http://x","y")"#, #""'=HYPERLINK(""http://x"",""y"")""#), ("+1+1", "'+1+1"),
              ("@SUM(1,1)", "\"'@SUM(1,1)\""), ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"), ("-2+3", "'-2+3"),
              ("\tTab", "'\tTab"), ("\rCR", "\"'\rCR\""), ("=", "'="), ("a=b", "a=b"), (" =x", "\" =x\""),
              ("'quoted", "'quoted"), ("", ""),
          ])
    func formulaNeutralised(text: String, field: String) {
        var out: [UInt8] = []
        CSVField.append(text, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == field)
    }

    @Test("a row: formula-like names neutralised, a negative value still a bare number, NDJSON unchanged")
    func formulaRow() throws {
        var sample = Self.bare
        sample.value = -3.5
        sample.sourceName = "-2+3"
        sample.deviceName = "@SUM(1,1)"
        sample.utcOffsetSeconds = -3600
        let csv = String(decoding: ExportEncoder.rows([sample], format: .csv), as: UTF8.self)
        #expect(csv == """
            00000000-0000-4000-8000-000000000001,HKQuantityTypeIdentifierStepCount,1970-01-01T00:00:00.000Z,\
            1970-01-01T00:01:00.000Z,-3.5,count,'-2+3,com.apple.health,,"'@SUM(1,1)",,-3600,

            """)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(ExportEncoder.rows([sample], format: .ndjson)))
            as? [String: Any])
        #expect(object["source"] as? String == "-2+3")
        #expect(object["device"] as? String == "@SUM(1,1)")
    }

    @Test("the CSV header and a row: every column, details as quoted JSON text, absent values empty, LF")
    func csvRow() {
        #expect(String(decoding: ExportEncoder.header(.csv), as: UTF8.self)
                == "uuid,type,start,end,value,unit,source,sourceBundleId,sourceVersion,device,deviceModel,utcOffsetSeconds,details\n")
        let rows = String(decoding: ExportEncoder.rows([Self.heartRate, Self.bare], format: .csv), as: UTF8.self)
        #expect(rows == """
            0B1E6A4C-8F8E-4C1F-9B7A-2B7E3C1D5A10,HKQuantityTypeIdentifierHeartRate,2025-05-11T16:27:22.000Z,\
            2025-05-11T16:27:22.500Z,72,count/min,Anna's Apple Watch,com.apple.health,10.1,Apple Watch,"Watch6,2",7200,\
            "{""metadata"":{""HKMetadataKeyHeartRateMotionContext"":""1""}}"
            00000000-0000-4000-8000-000000000001,HKQuantityTypeIdentifierStepCount,1970-01-01T00:00:00.000Z,\
            1970-01-01T00:01:00.000Z,12.5,count,iPhone,com.apple.health,,,,,

            """)
    }

    @Test("an NDJSON line is a JSON object with the columns as keys in order, details an object, absent values null")
    func ndjsonLine() throws {
        #expect(ExportEncoder.header(.ndjson).isEmpty)
        let text = String(decoding: ExportEncoder.rows([Self.heartRate, Self.bare], format: .ndjson), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty)
        #expect(lines[0] == #"""
            {"uuid":"0B1E6A4C-8F8E-4C1F-9B7A-2B7E3C1D5A10","type":"HKQuantityTypeIdentifierHeartRate",\#
            "start":"2025-05-11T16:27:22.000Z","end":"2025-05-11T16:27:22.500Z","value":72,"unit":"count/min",\#
            "source":"Anna's Apple Watch","sourceBundleId":"com.apple.health","sourceVersion":"10.1",\#
            "device":"Apple Watch","deviceModel":"Watch6,2","utcOffsetSeconds":7200,\#
            "details":{"metadata":{"HKMetadataKeyHeartRateMotionContext":"1"}}}
            """#)
        let bare = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(bare["value"] as? Double == 12.5)
        for key in ["sourceVersion", "device", "deviceModel", "utcOffsetSeconds", "details"] {
            #expect(bare[key] is NSNull, "\(key)")
        }
        #expect(Set(bare.keys) == Set(ExportEncoder.columns))
    }

    @Test("text with quotes, backslashes and control characters round-trips through both formats")
    func escapes() throws {
        var sample = Self.bare
        sample.sourceName = "a \"quoted\", back\\slash\tand\nnewline"
        let line = ExportEncoder.rows([sample], format: .ndjson)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(object["source"] as? String == sample.sourceName)
        let csv = String(decoding: ExportEncoder.rows([sample], format: .csv), as: UTF8.self)
        #expect(csv.contains(#","a ""quoted"", back\slash"# + "\tand\nnewline\","))
    }

    @Test("formats by name, any case; content types")
    func formats() {
        #expect(ExportFormat(name: "CSV") == .csv)
        #expect(ExportFormat(name: "ndjson") == .ndjson)
        #expect(ExportFormat(name: "jsonl") == .ndjson)
        #expect(ExportFormat(name: "parquet") == nil)
        #expect(ExportFormat.csv.contentType == "text/csv; charset=utf-8")
        #expect(ExportFormat.ndjson.contentType == "application/x-ndjson")
    }

    @Test("--from/--to: dates are local days (to inclusive), instants are UTC (to exclusive), either may be absent")
    func ranges() throws {
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let days = try ExportRange.parse(from: "2025-05-11", to: "2025-05-12", timeZone: berlin)
        #expect(days == TimeRange(start: ISO8601Millis.parse("2025-05-10T22:00:00.000Z")!,
                                  end: ISO8601Millis.parse("2025-05-12T22:00:00.000Z")!))
        let instants = try ExportRange.parse(from: "2025-05-11T16:00:00.000Z", to: "2025-05-11T17:00:00.000Z",
                                             timeZone: berlin)
        #expect(instants == TimeRange(start: ISO8601Millis.parse("2025-05-11T16:00:00.000Z")!,
                                      end: ISO8601Millis.parse("2025-05-11T17:00:00.000Z")!))
        #expect(try ExportRange.parse(from: nil, to: nil, timeZone: berlin) == ExportRange.all)
        #expect(try ExportRange.parse(from: "2025-05-11", to: nil, timeZone: berlin).end == ExportRange.all.end)
        // A day that begins at a DST change still begins at its first instant.
        #expect(try ExportRange.parse(from: "2025-03-30", to: "2025-03-30", timeZone: berlin).duration == 23 * 3_600_000)
    }

    @Test("a bad bound names its parameter", arguments: [
        ("yesterday" as String?, nil as String?, "--from"), ("2025-13-01", nil, "--from"),
        (nil, "2025-05-11T25:00:00.000Z", "--to"), ("2025-05-12", "2025-05-10", "--to"),
    ])
    func badBounds(from: String?, to: String?, parameter: String) {
        #expect(throws: ExportRangeError.self) {
            try ExportRange.parse(from: from, to: to, timeZone: TimeZone(identifier: "UTC")!, names: ("--from", "--to"))
        }
        do {
            _ = try ExportRange.parse(from: from, to: to, timeZone: TimeZone(identifier: "UTC")!, names: ("--from", "--to"))
        } catch {
            #expect(error.parameter == parameter)
            #expect(error.message.hasPrefix(parameter))
        }
    }
}
