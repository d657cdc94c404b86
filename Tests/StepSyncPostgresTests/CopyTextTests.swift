import Foundation
import NIOCore
import StepSyncCore
@testable import StepSyncPostgres
import Testing

/// The COPY rows of schema v3's direct COPY (no server).
@Suite("COPY rows of schema v3 (no server)")
struct CopyTextTests {
    @Test("a uuid is written as uuidString writes it, for 1,000 random uuids and the extremes")
    func uuidForm() {
        let uuids = (0..<1_000).map { _ in UUID() } + [
            UUID(uuidString: "00000000-0000-0000-0000-000000000000")!,
            UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")!,
            UUID(uuidString: "0123456789ABCDEF0123456789ABCDEF".enumerated().reduce(into: "") { text, item in
                if [8, 12, 16, 20].contains(item.offset) { text += "-" }
                text.append(item.element)
            })!,
        ]
        for uuid in uuids {
            var buffer = ByteBuffer()
            CopyText.appendUUID(uuid, to: &buffer)
            #expect(String(buffer: buffer) == uuid.uuidString)
        }
    }

    @Test("a row for samples carries client_id first and the type key last; a staging row the key last")
    func rowWithKey() {
        let sample = HealthSample(uuid: UUID(uuidString: "D67311EE-FACB-41AA-B202-8D266F3EDE18")!, type: .stepCount,
                                  startMs: 0, endMs: 1, utcOffsetSeconds: -3600, value: 12.5, unit: "count",
                                  sourceName: "a\tb", sourceBundleId: "com.apple.health", deviceName: "iPhone")
        let key = SampleTypeKey.of(.stepCount)
        #expect(key == -8_248_913_256_205_613_422)  // stepsync_type_key('HKQuantityTypeIdentifierStepCount') in PostgreSQL 15
        let fields = "D67311EE-FACB-41AA-B202-8D266F3EDE18\tHKQuantityTypeIdentifierStepCount\t"
            + "1970-01-01 00:00:00+00\t1970-01-01 00:00:00.001+00\t-3600\t12.5\tcount\ta\\tb\t"
            + "com.apple.health\t\\N\tiPhone\t\\N\t\\N"
        var direct = ByteBuffer()
        CopyText.appendRow(sample, typeKey: key, client: 42, to: &direct)
        #expect(String(buffer: direct) == "42\t" + fields + "\t-8248913256205613422\n")
        var staged = ByteBuffer()
        CopyText.appendRow(sample, typeKey: key, client: nil, to: &staged)
        #expect(String(buffer: staged) == fields + "\t-8248913256205613422\n")
        #expect(PostgresSampleStorage.copyColumns.count == 15)
        #expect(PostgresSampleStorage.copyColumns.first == "client_id" && PostgresSampleStorage.copyColumns.last == "type_key")
    }

    @Test("an instant is written as the wire's ISO form with a space, `+00`, and its milliseconds only when not zero")
    func instantForm() {
        var rng = SystemRandomNumberGenerator()
        let instants = (0..<2_000).map { _ in Int64.random(in: Instants.min...Instants.max, using: &rng) }
            + (0..<200).map { _ in Int64.random(in: -86_400_000...86_400_000, using: &rng) / 1000 * 1000 }
            + [Instants.min, Instants.max, -1, 0, 1, 999, 1000, -1000, -86_400_000, 951_782_400_000]  // 2000-02-29
        for ms in instants {
            var buffer = ByteBuffer()
            CopyText.appendInstant(ms, to: &buffer)
            let iso = ISO8601Millis.format(ms)  // 2025-05-11T16:27:22.000Z
            let expected = iso.prefix(10) + " " + iso.dropFirst(11).prefix(8)
                + (ms.isMultiple(of: 1000) ? "" : iso.dropFirst(19).prefix(4)) + "+00"
            #expect(String(buffer: buffer) == expected, "\(ms)")
        }
    }

    @Test("integers are written as String(_:) writes them", arguments: [
        Int64.min, Int64.max, 0, -1, 1, 9, 10, -10, 99, 100, 1_234_567_890, -8_248_913_256_205_613_422,
    ])
    func integerForm(_ value: Int64) {
        var buffer = ByteBuffer()
        CopyText.appendInteger(value, to: &buffer)
        #expect(String(buffer: buffer) == String(value))
    }

    @Test("a value is its integer digits when integral below 2^53, else Swift's shortest round-trip form", arguments: [
        (0.0, "0"), (-0.0, "-0.0"), (1, "1"), (-5, "-5"), (123, "123"), (12.5, "12.5"), (0.1, "0.1"),
        (9_007_199_254_740_991, "9007199254740991"), (-9_007_199_254_740_991, "-9007199254740991"),
        (9_007_199_254_740_992, "9007199254740992.0"), (1e300, "1e+300"), (1e-300, "1e-300"),
    ] as [(Double, String)])
    func valueForm(_ value: Double, _ text: String) {
        var buffer = ByteBuffer()
        CopyText.appendValue(value, to: &buffer)
        #expect(String(buffer: buffer) == text)
        #expect(Double(text).map { $0.bitPattern == value.bitPattern } == true)
    }

    @Test("a batch is put in uuid byte order, PostgreSQL's, keeping every sample once")
    func uuidOrder() {
        let samples = (0..<2_000).map { i in
            HealthSample(uuid: UUID(), type: .stepCount, startMs: Int64(i), endMs: Int64(i), value: Double(i),
                         unit: "count", sourceName: "", sourceBundleId: "b")
        }
        let repeated = samples + samples.prefix(10)
        let sorted = PostgresSampleStorage.sortedByUUID(repeated)
        #expect(sorted == repeated.sorted { $0.uuid.bytesPrecede($1.uuid) })
        #expect(Set(sorted) == Set(samples) && sorted.count == repeated.count)
    }

    @Test("a row of longest fields (every byte escaped, every optional set, extreme integers) is its columns joined by tabs")
    func longestRow() {
        let escapes = String(repeating: "\\\t\n\r", count: 20_000)
        let sample = HealthSample(uuid: UUID(), type: SampleType(rawValue: "HK\\\t" + escapes), startMs: Instants.min,
                                  endMs: Instants.max, utcOffsetSeconds: Int32.min, value: -2.2250738585072014e-308,
                                  unit: escapes, sourceName: "Ännas Uhr ⌚️" + escapes, sourceBundleId: escapes,
                                  sourceVersion: escapes, deviceName: escapes, deviceModel: escapes, details: escapes)
        var row = ByteBuffer()
        CopyText.appendRow(sample, typeKey: .min, client: .max, to: &row)
        var columns: [String] = [String(Int64.max)]
        func text(_ value: String) -> String {
            var buffer = ByteBuffer()
            CopyText.appendText(value, to: &buffer)
            return String(buffer: buffer)
        }
        columns.append(sample.uuid.uuidString)
        columns.append(text(sample.type.rawValue))
        for ms in [sample.startMs, sample.endMs] {
            var buffer = ByteBuffer()
            CopyText.appendInstant(ms, to: &buffer)
            columns.append(String(buffer: buffer))
        }
        columns += [String(Int32.min), "-2.2250738585072014e-308"]
        columns += [sample.unit, sample.sourceName, sample.sourceBundleId, escapes, escapes, escapes, escapes].map(text)
        columns.append(String(Int64.min))
        #expect(String(buffer: row) == columns.joined(separator: "\t") + "\n")
        #expect(text(escapes).utf8.count == 2 * escapes.utf8.count)
    }
}
