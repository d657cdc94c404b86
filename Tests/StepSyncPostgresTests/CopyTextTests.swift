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
            + "1970-01-01T00:00:00.000Z\t1970-01-01T00:00:00.001Z\t-3600\t12.5\tcount\ta\\tb\t"
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
}
