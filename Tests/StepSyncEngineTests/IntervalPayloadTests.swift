import Foundation
import StepSyncCore
@testable import StepSyncEngine
import StepSyncStore
import StepSyncTestSupport
import Testing

/// The request body is written straight from the store's rows (no ``HealthSample`` per sample): it must be, byte for
/// byte, the body the ``HealthSample`` encoders write for the valid samples the page reader returns, and leave out
/// exactly the samples ``SampleValidation`` refuses.
@Suite("IntervalPayload: the body written from rows equals the HealthSample encoders' body")
struct IntervalPayloadTests {
    static let origin: Int64 = 1_700_000_000_000

    /// Samples of `type` over two days: escapes and non-ASCII in the text fields, fractional and whole values,
    /// optional fields present and absent, `details` on some.
    static func samples(_ type: SampleType, count: Int) -> [HealthSample] {
        let names = ["iPhone", "Anna’s \"Watch\" ⌚️", "back\\slash\ttab", "", "Apple Watch"]
        return (0..<count).map { i in
            var uuid = UUID(uuidString: "0B1E6D2A-3C4F-4A5B-8C9D-0E1F2A3B4C5D")!.uuid
            uuid.14 = UInt8(truncatingIfNeeded: i)
            uuid.15 = UInt8(truncatingIfNeeded: i >> 8)
            let start = origin + Int64(i) * 7 * 60_000
            return HealthSample(
                uuid: UUID(uuid: uuid), type: type, startMs: start, endMs: start + Int64(i % 4) * 30_000,
                utcOffsetSeconds: i % 3 == 0 ? nil : 3600,
                value: type == .stepCount ? Double(i % 7 == 0 ? i * 3 : i) + (i % 5 == 0 ? 0.5 : 0) : 60 + Double(i % 90),
                unit: type == .stepCount ? "count" : "count/min", sourceName: names[i % names.count],
                sourceBundleId: i % 2 == 0 ? "com.apple.health.phone" : "com.apple.health.\"watch\"",
                sourceVersion: i % 4 == 0 ? nil : "17.\(i % 3)", deviceName: i % 3 == 0 ? nil : names[(i + 1) % names.count],
                deviceModel: i % 6 == 0 ? nil : "Watch6,2",
                details: type == .stepCount || i % 2 == 0 ? nil : #"{"metadata":{"k":"\#(i) \"q\""},"beats":[]}"#)
        }
    }

    /// A store holding `samples`, with four rows then changed behind the inserter's back: a negative value, a
    /// 2,000-byte source name, a NUL in the device name (all three invalid) and invalid UTF-8 in a source name (valid
    /// once decoded, as `String(decoding:)` repairs it). Returns the store and four intervals covering the samples.
    static func store(_ type: SampleType, samples: [HealthSample], in dir: Scratch) throws
        -> (StepStore, [SyncInterval])
    {
        let path = dir.file("health.sqlite")
        let store = try StepStore(path: path)
        try store.insert(samples)
        func row(_ n: Int) -> String { "(SELECT seq FROM sample ORDER BY start_ms LIMIT 1 OFFSET \(n))" }
        try RawStore.execute("UPDATE sample SET value = -5 WHERE seq = \(row(10))", storePath: path)
        try RawStore.execute("UPDATE sample SET source_name = ? WHERE seq = \(row(20))",
                             arguments: [String(repeating: "x", count: 2_000)], storePath: path)
        try RawStore.execute("UPDATE sample SET device_name = CAST(X'6950686F6E6500' AS TEXT) WHERE seq = \(row(30))",
                             storePath: path)
        try RawStore.execute("UPDATE sample SET source_name = CAST(X'416E6E61FF2063' AS TEXT) WHERE seq = \(row(40))",
                             storePath: path)
        let day = Milliseconds.day
        let planned = (0..<4).map { i in
            SyncInterval(type: type, range: TimeRange(start: origin + Int64(i) * day / 2, end: origin + Int64(i + 1) * day / 2),
                         steps: 0, samples: 0)
        }
        return (store, try store.appendIntervals(planned))
    }

    /// The samples of `intervals` as the page reader returns them, with their intervals, split into valid and not.
    static func reference(_ store: StepStore, _ intervals: [SyncInterval])
        throws -> (valid: [(HealthSample, Int64)], invalid: [HealthSample])
    {
        var valid: [(HealthSample, Int64)] = []
        var invalid: [HealthSample] = []
        try store.forEachSamplePage(of: intervals, pageSize: 5_000) { interval, page in
            for sample in page {
                if SampleValidation.problem(of: sample) == nil { valid.append((sample, interval.id)) } else {
                    invalid.append(sample)
                }
            }
        }
        return (valid, invalid)
    }

    @Test("step counts: the /steps body is byte for byte encodeRequest of the valid samples, at page sizes 1, 7, 5,000",
          arguments: [1, 7, 5_000])
    func stepsBody(pageSize: Int) throws {
        let dir = try Scratch()
        let (store, intervals) = try Self.store(.stepCount, samples: Self.samples(.stepCount, count: 400), in: dir)
        let (valid, invalid) = try Self.reference(store, intervals)
        #expect(valid.count == 397 && invalid.count == 3)
        #expect(valid.contains { $0.0.sourceName == "Anna\u{FFFD} c" }, "the invalid UTF-8 was repaired and is sent")
        let payload = try IntervalPayload(of: intervals, store: store, pageSize: pageSize, nowMs: 42)
        #expect(payload.endpoint == .steps)
        #expect(payload.body == WireEncoder.encodeRequest(valid.map(\.0)))
        #expect(payload.uuids == valid.map(\.0.uuid))
        #expect(payload.owners == valid.map(\.1))
        #expect(payload.count == 397)
        #expect(payload.rejected.map(\.uuid) == invalid.map(\.uuid))
        #expect(payload.rejected.map(\.reason) == ["negative_value", "field_too_long", "nul_character"])
        #expect(payload.rejected.map(\.field) == ["value", "sourceName", "sourceDeviceName"])
        #expect(payload.rejected.allSatisfy { $0.foundBy == .engine && $0.atMs == 42 && $0.type == .stepCount })
    }

    @Test("heart rates: the /samples body is byte for byte encodeSamplesRequest of the valid samples, details verbatim")
    func samplesBody() throws {
        let dir = try Scratch()
        let (store, intervals) = try Self.store(.heartRate, samples: Self.samples(.heartRate, count: 300), in: dir)
        let (valid, invalid) = try Self.reference(store, intervals)
        #expect(invalid.count == 2, "a negative heart rate is valid (discrete); the long name and the NUL are not")
        #expect(valid.filter { $0.0.details != nil }.count == 150)
        let payload = try IntervalPayload(of: intervals, store: store, pageSize: 5_000, nowMs: 1)
        #expect(payload.endpoint == .samples)
        #expect(payload.body == WireEncoder.encodeSamplesRequest(valid.map(\.0)))
        #expect(payload.uuids == valid.map(\.0.uuid))
        #expect(payload.rejected.map(\.uuid) == invalid.map(\.uuid))
    }

    @Test("removing a refused sample (first, middle, last, then all) leaves the body of the others, byte for byte")
    func removeSample() throws {
        for type in [SampleType.stepCount, .heartRate] {
            let dir = try Scratch()
            let (store, intervals) = try Self.store(type, samples: Self.samples(type, count: 60), in: dir)
            var remaining = try Self.reference(store, intervals).valid
            var payload = try IntervalPayload(of: intervals, store: store, pageSize: 5_000, nowMs: 1)
            func encode() -> [UInt8] {
                type == .stepCount ? WireEncoder.encodeRequest(remaining.map(\.0))
                    : WireEncoder.encodeSamplesRequest(remaining.map(\.0))
            }
            #expect(payload.body == encode())
            for position in [0, 17, -1] {
                let index = position < 0 ? remaining.count - 1 : position  // the last one as the body is now
                let cut = payload.removeSample(at: index)
                let removed = try #require(cut)
                let expected = remaining.remove(at: index)
                #expect(removed.uuid == expected.0.uuid && removed.intervalId == expected.1)
                #expect(payload.body == encode())
                #expect(payload.count == remaining.count)
            }
            let outside = payload.removeSample(at: remaining.count)
            #expect(outside == nil, "an index past the body's samples is not removed")
            while !remaining.isEmpty {
                let index = remaining.count / 2
                let cut = payload.removeSample(at: index)
                #expect(cut?.uuid == remaining.remove(at: index).0.uuid)
                #expect(payload.body == encode())
            }
            #expect(String(decoding: payload.body, as: UTF8.self) == #"{"samples":[]}"#)
        }
    }
}

/// A directory of its own for one store, removed afterwards.
final class Scratch {
    let path: String

    init() throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("stepsync-payload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
