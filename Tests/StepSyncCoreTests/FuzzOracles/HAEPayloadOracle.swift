import Foundation
import StepSyncCore

/// What ``HAEPayloadReader`` (the body of `POST /ingest/health-auto-export`) promises for any bytes, as checks that
/// return the broken promises (empty when all hold). Byte 0 picks the aggregation (none, minutes, hours, days,
/// months, years); the rest is the body. The promises:
/// 1. any input is safe (no trap); a refusal is an ``HAEPayloadError`` whose field is `body` or starts with `data`
///    and whose message is at most 300 bytes;
/// 2. an accepted body gives samples that all pass ``SampleValidation`` and end at or after their start, skip counts
///    that add up to at least the points named, and reads the same (uuids, values) a second time;
/// 3. every date ``HAEDate`` accepts in the body's text is inside ``Instants`` (checked on the whole input as one
///    date too);
/// 4. read a batch at a time (as the sink reads, ``HAEBodyMap`` and ``HAEBodyCursor``; batches of 1 to 4 samples),
///    the body gives the same samples and skip counts as in one reading.
enum HAEPayloadOracle {
    static let aggregations: [HAEAggregation] = [.none, .seconds(60), .seconds(3600), .seconds(86_400), .months(1),
                                                 .months(12)]

    /// The promises broken on `bytes`.
    static func problems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        guard let first = bytes.first else { return [] }
        let aggregation = aggregations[Int(first) % aggregations.count]
        let body = Data(bytes.dropFirst())
        var problems: [String] = []
        if let instant = body.withUnsafeBytes({ HAEDate.parse(bytes: $0.bindMemory(to: UInt8.self)) }),
           !Instants.contains(instant.ms) {
            problems.append("HAEDate accepted an instant outside Instants: \(instant.ms)")
        }
        let reader = HAEPayloadReader(aggregation: aggregation)
        let reading: HAEReading
        do {
            reading = try reader.read(body)
        } catch {
            if !(error.field == "body" || error.field.hasPrefix("data")) { problems.append("field \(error.field)") }
            if error.message.utf8.count > 300 { problems.append("message of \(error.message.utf8.count) bytes") }
            return problems
        }
        for sample in reading.samples {
            if let problem = SampleValidation.problem(of: sample) { problems.append("invalid sample: \(problem)") }
        }
        let skipped = reading.skipped.values.reduce(0, +)
        if skipped < reading.skippedPoints.count { problems.append("\(skipped) skipped, \(reading.skippedPoints.count) named") }
        let limit = 1 + bytes.count % 4
        body.withUnsafeBytes { raw in
            guard let map = try? HAEBodyMap(raw, reader: reader) else {
                return problems.append("the map refused a body read whole")
            }
            var batched = HAEReading(map), cursor = HAEBodyCursor(), samples: [HealthSample] = []
            while !cursor.isAtEnd(of: map) {
                reader.read(raw, map: map, cursor: &cursor, into: &batched, upTo: limit)
                samples += batched.handOff()
            }
            if samples != reading.samples || batched.skipped != reading.skipped || batched.types != reading.types {
                problems.append("read in batches of \(limit), the body reads otherwise")
            }
        }
        if let again = try? reader.read(body) {
            if again.samples.map(\.uuid) != reading.samples.map(\.uuid)
                || again.samples.map(\.value.bitPattern) != reading.samples.map(\.value.bitPattern) {
                problems.append("a second reading differs")
            }
        } else {
            problems.append("a second reading failed")
        }
        return problems
    }
}
