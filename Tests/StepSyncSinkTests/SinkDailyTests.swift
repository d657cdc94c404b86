import DailyReference
import Foundation
import StepSyncCore
import StepSyncSink
import Testing
import StepSyncTestSupport

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
                #expect(try await client.post(Self.phoneAndWatchWalk()).status == 200)
                let reply = try await client.send(.GET, "/steps/daily?from=2025-05-10&to=2025-05-12&tz=Europe/Berlin")
                #expect(reply.text == #"{"tz":"Europe/Berlin","from":"2025-05-10","to":"2025-05-12","unmatched":[],"days":[{"date":"2025-05-10","steps":0},{"date":"2025-05-11","steps":900},{"date":"2025-05-12","steps":0}]}"#)
                let iphoneFirst = try await client.send(.GET, "/steps/daily?from=2025-05-11&to=2025-05-11&priority=iPhone,Apple%20Watch")
                #expect(iphoneFirst.text == #"{"tz":"UTC","from":"2025-05-11","to":"2025-05-11","unmatched":[],"days":[{"date":"2025-05-11","steps":600}]}"#)
                let all = try await client.send(.GET, "/steps/daily")
                #expect(all.text == #"{"tz":"UTC","from":"2025-05-11","to":"2025-05-11","unmatched":[],"days":[{"date":"2025-05-11","steps":900}]}"#)
            }
        }
    }

    @Test("bad parameters are 400 naming the parameter; an empty sink answers no days", arguments: SinkBackend.allCases)
    func badParameters(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let empty = try await client.send(.GET, "/steps/daily")
                #expect(empty.text == #"{"tz":"UTC","from":null,"to":null,"unmatched":["Apple Watch","iPhone"],"days":[]}"#)
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

    @Test("""
        without from/to the answer states the range it chose: clamped to 0001-01-01…9999-12-31 in any zone (a sample \
        at 9999-12-31T23:00Z is on 10000-01-01 in Kiritimati) and to the last 3,700 days; never a 400 about a \
        parameter not sent
        """, arguments: SinkBackend.allCases)
    func chosenRangeIsStated(backend: SinkBackend) async throws {
        @Sendable func walk(_ iso: String, _ count: Double) -> WireSample {
            let start = ISO8601Millis.parse(iso)!
            return WireSample(uuid: UUID(), startMs: start, endMs: start + 600_000, count: count,
                              sourceBundleId: "com.apple.health.iPhone", sourceDeviceName: "iPhone")
        }
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                #expect(try await client.post([walk("9999-12-31T23:00:00.000Z", 700)]).status == 200)
                let kiritimati = try await client.send(.GET, "/steps/daily?tz=Pacific/Kiritimati")
                #expect(kiritimati.status == 200, "\(kiritimati.text)")
                // 23:00Z is 13:00 on 10000-01-01 there: past the last nameable day, so that day is not answered.
                #expect(kiritimati.json["from"] as? String == "9999-12-31")
                #expect(kiritimati.json["to"] as? String == "9999-12-31")
                #expect((kiritimati.json["days"] as? [[String: Any]])?.map { $0["steps"] as? Int } == [0])
                let utc = try await client.send(.GET, "/steps/daily")
                #expect(utc.text == #"{"tz":"UTC","from":"9999-12-31","to":"9999-12-31","unmatched":["Apple Watch"],"days":[{"date":"9999-12-31","steps":700}]}"#)
            }
        }
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                #expect(try await client.post([walk("0001-01-01T00:30:00.000Z", 300)]).status == 200)
                // 00:30Z on 0001-01-01 is still 0000-12-31 at UTC-11: clamped to the first nameable day.
                let pagoPago = try await client.send(.GET, "/steps/daily?tz=Pacific/Pago_Pago")
                #expect(pagoPago.status == 200, "\(pagoPago.text)")
                #expect(pagoPago.json["from"] as? String == "0001-01-01")
                #expect(pagoPago.json["to"] as? String == "0001-01-01")
            }
        }
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                let samples = [walk("2000-01-01T12:00:00.000Z", 100), walk("2020-06-30T12:00:00.000Z", 200)]
                #expect(try await client.post(samples).status == 200)
                let reply = try await client.send(.GET, "/steps/daily")
                let days = reply.json["days"] as? [[String: Any]] ?? []
                // 2020-06-30 minus 3,699 days: the first day of the last 3,700; the year-2000 walk is outside.
                let expectedFrom = CivilDate(iso: "2020-06-30")!.advanced(by: -(DailyStepsRequest.maxDays - 1))
                #expect(reply.json["from"] as? String == expectedFrom.description)
                #expect(reply.json["to"] as? String == "2020-06-30")
                #expect(days.count == DailyStepsRequest.maxDays)
                #expect(days.first?["date"] as? String == expectedFrom.description)
                #expect(days.compactMap { $0["steps"] as? Int }.reduce(0, +) == 200)
            }
        }
    }

    @Test("""
        issue 22: priority=Apple+Watch,iPhone (every HTTP library's encoding) is the Watch, like %20; a priority name \
        that matches no device is listed in unmatched; a bad escape is 400 naming the parameter
        """, arguments: SinkBackend.allCases)
    func formEncodedQuery(backend: SinkBackend) async throws {
        try await withTemporaryDirectory { dir in
            try await withSink(backend, directory: dir) { client, _ in
                #expect(try await client.post(Self.phoneAndWatchWalk()).status == 200)
                let range = "from=2025-05-11&to=2025-05-11"
                let plus = try await client.send(.GET, "/steps/daily?\(range)&priority=Apple+Watch,iPhone")
                let percent = try await client.send(.GET, "/steps/daily?\(range)&priority=Apple%20Watch%2CiPhone")
                #expect(plus.text == #"{"tz":"UTC","from":"2025-05-11","to":"2025-05-11","unmatched":[],"days":[{"date":"2025-05-11","steps":900}]}"#)
                #expect(percent.text == plus.text)
                let phoneFirst = try await client.send(.GET, "/steps/daily?\(range)&priority=iPhone,Apple+Watch&tz=Europe%2FBerlin")
                #expect((phoneFirst.json["days"] as? [[String: Any]])?.first?["steps"] as? Int == 600, "\(phoneFirst.text)")
                let typo = try await client.send(.GET, "/steps/daily?\(range)&priority=Apple+Wacth,iPhone")
                #expect(typo.status == 200)
                #expect(typo.json["unmatched"] as? [String] == ["Apple Wacth"])
                let badEscape = try await client.send(.GET, "/steps/daily?\(range)&priority=%FF")
                #expect(badEscape.status == 400)
                #expect(badEscape.json["field"] as? String == "priority", "\(badEscape.text)")
                let badUTF8 = try await client.send(.GET, "/samples?type=HKQuantityTypeIdentifierHeartRate&cursor=%FF")
                #expect(badUTF8.status == 400 && badUTF8.json["field"] as? String == "cursor", "\(badUTF8.text)")
                // GET /samples reads its parameters the same way.
                let page = try await client.send(.GET, "/steps?limit=1&from=2025-05-11T00%3A00%3A00.000Z")
                #expect(page.status == 200 && page.uuids.count == 1, "\(page.text)")
            }
        }
    }

    /// An iPhone (600 steps) and a Watch (900 steps) recording the same ten minutes from 2025-05-11T10:00Z.
    static func phoneAndWatchWalk() -> [WireSample] {
        let start = ISO8601Millis.parse("2025-05-11T10:00:00.000Z")!
        let phone = WireSample(uuid: UUID(), startMs: start, endMs: start + 600_000, count: 600,
                               sourceBundleId: "com.apple.health.iPhone", sourceDeviceName: "iPhone")
        let watch = WireSample(uuid: UUID(), startMs: start, endMs: start + 600_000, count: 900,
                               sourceBundleId: "com.apple.health.Watch", sourceDeviceName: "Apple Watch")
        return [phone, watch]
    }
}
