import DailyReference
import Foundation
import StepSyncCore
import StepSyncSink
import Testing

/// `GET /steps/daily` answers with the daily-totals rule (a walk recorded by the iPhone and the Watch counts once),
/// checked against the brute-force reference on random overlapping histories, on every storage.
@Suite("Sink daily step totals")
struct SinkDailyTests {
    @Test("12 random iPhone + Watch histories across midnight and DST: GET /steps/daily equals the reference, day by day",
          arguments: SinkBackend.allCases)
    func randomHistoriesMatchReference(backend: SinkBackend) async throws {
        for seed in UInt64(0)..<12 {
            let dailyCase = DailyCase.random(seed: seed)
            try await withTemporaryDirectory { dir in
                try await withSink(backend, directory: dir) { client, _ in
                    let wire = dailyCase.healthSamples().map(WireSample.init)
                    if !wire.isEmpty {
                        let reply = try await client.post(wire)
                        #expect(reply.status == 200, "seed \(seed): \(reply.text)")
                    }
                    let query = "from=\(dailyCase.from)&to=\(dailyCase.to)&tz=\(dailyCase.timeZoneName)"
                        + "&priority=" + dailyCase.priority.joined(separator: ",")
                            .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                    let reply = try await client.send(.GET, "/steps/daily?" + query)
                    #expect(reply.status == 200, "seed \(seed): \(reply.text)")
                    #expect(reply.json["tz"] as? String == dailyCase.timeZoneName)
                    let days = reply.json["days"] as? [[String: Any]] ?? []
                    let expected = dailyCase.referenceMicroSteps().map { $0 / 1_000_000 + ($0 % 1_000_000 >= 500_000 ? 1 : 0) }
                    #expect(days.map { $0["date"] as? String } == (dailyCase.from...dailyCase.to).map { "\($0)" },
                            "seed \(seed)")
                    #expect(days.map { ($0["steps"] as? NSNumber)?.int64Value } == expected.map { Optional($0) },
                            "seed \(seed): \(dailyCase)")
                }
            }
        }
    }

    @Test("an iPhone and a Watch walk over the same ten minutes count once (the Watch's), not 1,500", arguments: SinkBackend.allCases)
    func overlapCountsOnce(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let start = ISO8601Millis.parse("2025-05-11T10:00:00.000Z")!
                let phone = WireSample(uuid: UUID(), startMs: start, endMs: start + 600_000, count: 600,
                                       sourceBundleId: "com.apple.health.iPhone", sourceDeviceName: "iPhone")
                let watch = WireSample(uuid: UUID(), startMs: start, endMs: start + 600_000, count: 900,
                                       sourceBundleId: "com.apple.health.Watch", sourceDeviceName: "Apple Watch")
                #expect(try await client.post([phone, watch]).status == 200)
                let reply = try await client.send(.GET, "/steps/daily?from=2025-05-10&to=2025-05-12&tz=Europe/Berlin")
                #expect(reply.text == #"{"tz":"Europe/Berlin","days":[{"date":"2025-05-10","steps":0},{"date":"2025-05-11","steps":900},{"date":"2025-05-12","steps":0}]}"#)
                let iphoneFirst = try await client.send(.GET, "/steps/daily?from=2025-05-11&to=2025-05-11&priority=iPhone,Apple%20Watch")
                #expect(iphoneFirst.text == #"{"tz":"UTC","days":[{"date":"2025-05-11","steps":600}]}"#)
                let all = try await client.send(.GET, "/steps/daily")
                #expect(all.text == #"{"tz":"UTC","days":[{"date":"2025-05-11","steps":900}]}"#)
            }
        }
    }

    @Test("bad parameters are 400 naming the parameter; an empty sink answers no days", arguments: SinkBackend.allCases)
    func badParameters(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let empty = try await client.send(.GET, "/steps/daily")
                #expect(empty.text == #"{"tz":"UTC","days":[]}"#)
                for (query, field) in [("from=2025-13-01&to=2025-05-01", "from"), ("from=2025-05-02&to=2025-05-01", "to"),
                                       ("from=2025-05-01&to=2025-05-02&tz=Mars/Olympus", "tz"),
                                       ("from=2025-05-01", "to"), ("to=2025-05-01", "from"),
                                       ("from=2025-05-01&to=2025-05-02&priority=", "priority")] {
                    let reply = try await client.send(.GET, "/steps/daily?" + query)
                    #expect(reply.status == 400, "\(query)")
                    #expect(reply.json["field"] as? String == field, "\(query): \(reply.text)")
                }
            }
        }
    }
}
