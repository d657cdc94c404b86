import Foundation
import StepSyncCore
import Testing
@testable import StepSyncImport

/// Apple Watch ECG files as the Health app exports them, in English and in decimal-comma locales.
@Suite("ECG CSV reader")
struct ElectrocardiogramCSVTests {
    /// A file shaped like the exports seen: header, blank lines, lead and unit, then `voltages` one a line.
    static func file(recorded: String = "2025-06-05 10:07:00 +0200", classification: String = "Sinus Rhythm",
                     voltages: [String], newline: String = "\n", bom: Bool = false) -> [UInt8] {
        let lines = ["Name,Anna Example", #"Date of Birth,"Jan 15, 1990""#, "Recorded Date,\(recorded)",
                     "Classification,\(classification)", "Symptoms,", "Software Version,1.90", #"Device,"Watch6,2""#,
                     "Sample Rate,512 hertz", "", "", "Lead,Lead I", "Unit,µV", ""] + voltages
        return (bom ? [0xEF, 0xBB, 0xBF] : []) + Array(lines.joined(separator: newline).utf8) + Array(newline.utf8)
    }

    /// 15,360 voltages (30 s at 512 Hz) as the English export writes them, and the values they stand for.
    static func thirtySeconds(decimalComma: Bool) -> (text: [String], values: [Double]) {
        let values = (0..<15_360).map { i in (Double((i * 7_919) % 200_001) - 100_000) / 1000 }
        let text = values.map { value -> String in
            let s = String(format: "%.3f", value)
            return decimalComma ? s.replacingOccurrences(of: ".", with: ",") : s
        }
        return (text, values)
    }

    @Test("an English export: every header field, 15,360 voltages in order, the instant in UTC with its offset")
    func english() throws {
        let (text, values) = Self.thirtySeconds(decimalComma: false)
        let ecg = try ElectrocardiogramCSV.parse(Self.file(voltages: text))
        #expect(ecg.recordedMs == ISO8601Millis.parse("2025-06-05T08:07:00.000Z"))
        #expect(ecg.utcOffsetSeconds == 7_200)
        #expect(ecg.classification == "Sinus Rhythm")
        #expect(ecg.symptoms == nil)
        #expect(ecg.softwareVersion == "1.90")
        #expect(ecg.device == "Watch6,2")
        #expect(ecg.sampleRateHz == 512)
        #expect(ecg.lead == "Lead I")
        #expect(ecg.unit == "µV")
        #expect(ecg.microvolts == values)
        #expect(ecg.durationMs == 30_000)
    }

    @Test("a German or Portuguese export: decimal commas, the classification as written, BOM and CRLF")
    func decimalComma() throws {
        let (text, values) = Self.thirtySeconds(decimalComma: true)
        #expect(text.contains("-99,999") || text.contains { $0.contains(",") })
        let ecg = try ElectrocardiogramCSV.parse(Self.file(classification: "Sinusrhythmus", voltages: text,
                                                           newline: "\r\n", bom: true))
        #expect(ecg.classification == "Sinusrhythmus")
        #expect(ecg.microvolts == values)
        #expect(ecg.device == "Watch6,2")
    }

    @Test("quoted voltages, integers and a plus sign read; names and birth dates are not kept")
    func voltageShapes() throws {
        let ecg = try ElectrocardiogramCSV.parse(Self.file(voltages: [#""-265,868""#, "12", "+0.5", "0,25"]))
        #expect(ecg.microvolts == [-265.868, 12, 0.5, 0.25])
        let kept = "\(ecg)"
        #expect(!kept.contains("Anna") && !kept.contains("1990"))
    }

    @Test("a damaged file is refused naming the line or field", arguments: [
        (file(recorded: "yesterday", voltages: ["1.0"]), "Recorded Date"),
        (file(voltages: ["1.0", "2.0", "oops", "3.0"]), "line 16"),
        (file(voltages: []), "no voltages"),
        (file(voltages: ["1.0", "1,000.5"]), "line 15"),
        (Array("1.0\n2.0\n".utf8), "no Recorded Date"),
        (Array("Recorded Date,2025-06-05 10:07:00 +0200\nDevice,\"Watch6,2\n".utf8), "never closed"),
        (Array("Recorded Date,2025-06-05 10:07:00 +0200\nSample Rate,fast\n\n1.0\n".utf8), "Sample Rate"),
        ([0xFF, 0xFE, 0x00] + Array("x".utf8), "not UTF-8"),
    ])
    func damaged(bytes: [UInt8], expected: String) {
        #expect {
            try ElectrocardiogramCSV.parse(bytes)
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test("a recorded date without an offset is refused (the instant would be a guess)")
    func noOffset() {
        #expect(throws: ElectrocardiogramCSVError.self) {
            try ElectrocardiogramCSV.parse(Self.file(recorded: "2025-06-05 10:07:00", voltages: ["1"]))
        }
    }
}
