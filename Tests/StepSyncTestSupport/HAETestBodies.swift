import Foundation
import StepSyncCore

/// Health Auto Export bodies for the tests that push many points, and the batches the sink stores them in.
public enum HAETestBodies {
    /// Heart rate, one Min/Avg/Max point a minute from 2025-06-02 00:00 UTC (3 samples a point: Min 50–56, Avg
    /// 60–70, Max 90–102); `tail` goes after the metric (to add a fault at the very end).
    public static func heartRateMinutes(_ points: Int, tail: String = "") -> [UInt8] {
        var text = "{\"data\":{\"metrics\":[{\"name\":\"heart_rate\",\"units\":\"bpm\",\"data\":["
        for m in 0..<points {
            let iso = ISO8601Millis.format(1_748_822_400_000 + Int64(m) * 60_000)
            let date = iso.prefix(10) + " " + iso.dropFirst(11).prefix(8) + " +0000"
            text += (m == 0 ? "" : ",")
                + "{\"date\":\"\(date)\",\"Min\":\(50 + m % 7),\"Avg\":\(60 + m % 11),\"Max\":\(90 + m % 13)}"
        }
        return Array((text + "]}\(tail)]}}").utf8)
    }

    /// `body`'s samples (minute buckets) in batches of `limit`, read as the sink reads them (``HAEBodyMap``, then
    /// ``HAEPayloadReader/read(_:map:cursor:into:upTo:)`` and ``HAEReading/handOff()``), and the reading after them.
    public static func batches(_ body: [UInt8], limit: Int = HAEPayloadReader.batchSamples,
                               aggregation: HAEAggregation = .seconds(60)) throws
        -> (batches: [[HealthSample]], reading: HAEReading)
    {
        let reader = HAEPayloadReader(aggregation: aggregation)
        return try body.withUnsafeBytes { bytes in
            let map = try HAEBodyMap(bytes, reader: reader)
            var (cursor, reading, batches) = (HAEBodyCursor(), HAEReading(map), [[HealthSample]]())
            while !cursor.isAtEnd(of: map) {
                reader.read(bytes, map: map, cursor: &cursor, into: &reading, upTo: limit)
                batches.append(reading.handOff())
            }
            return (batches, reading)
        }
    }
}
