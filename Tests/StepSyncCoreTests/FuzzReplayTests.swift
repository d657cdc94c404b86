import Foundation
import FuzzReplaySupport
import StepSyncCore
import Testing

/// The fuzzers' corpora and every crash they found, run once through the real parsers with the fuzzers' own oracles
/// (`FuzzOracles/`), plus a seeded slice of mutations of the corpus; see `Fuzz/README.md`.
@Suite("Fuzz replay: ISO-8601 dates, the wire and Health Auto Export bodies")
struct FuzzReplayTests {
    @Test("every iso8601 corpus and crash input, and 2,000 seeded mutations, keep ISO8601Millis's promises")
    func iso8601() throws {
        let oracle = ISO8601Oracle()
        let replay = try FuzzReplay("iso8601", mutations: 2_000, seed: 8601, oracle: oracle.problems)
        #expect(replay.corpusCount >= 18)
        #expect(replay.problems == [])
    }

    @Test("every wire-request corpus and crash input, and 1,000 seeded mutations, keep WireDecoder's promises")
    func wireRequest() throws {
        var accepted = 0
        let replay = try FuzzReplay("wire-request", mutations: 1_000, seed: 1, oracle: WireOracle.requestProblems) { input in
            if (try? WireDecoder.decodeRequest(input.bytes)) != nil { accepted += 1 }
        }
        #expect(replay.corpusCount >= 10)
        #expect(replay.problems == [])
        // The oracle checks both sides: refusals (message size) and acceptances (round trip, Foundation).
        #expect(accepted >= 5)
    }

    @Test("every wire-line corpus and crash input, and 1,000 seeded mutations, keep WireDecoder's promises for stored lines")
    func wireLine() throws {
        var accepted = 0
        let replay = try FuzzReplay("wire-line", mutations: 1_000, seed: 2, oracle: WireOracle.lineProblems) { input in
            if (try? WireDecoder.decodeSample(input.bytes)) != nil { accepted += 1 }
        }
        #expect(replay.corpusCount >= 7)
        #expect(replay.problems == [])
        #expect(accepted >= 3)
    }

    @Test("every wire-samples corpus and crash input, and 1,000 seeded mutations, keep the POST /samples promises")
    func wireSamples() throws {
        var accepted = 0
        let replay = try FuzzReplay("wire-samples", mutations: 1_000, seed: 5, oracle: WireOracle.samplesRequestProblems) { input in
            if let samples = try? WireDecoder.decodeSamplesRequest(input.bytes), !samples.isEmpty { accepted += 1 }
        }
        #expect(replay.corpusCount >= 10)
        #expect(replay.problems == [])
        #expect(accepted >= 5)
    }

    @Test("every wire-text corpus and crash input, and 3,000 seeded mutations: strings are accepted exactly when String(validating:) accepts their UTF-8 and UTF-16 runs")
    func wireText() throws {
        var accepted = 0, refused = 0
        let replay = try FuzzReplay("wire-text", mutations: 3_000, seed: 21, oracle: WireTextOracle.problems) { input in
            let pieces = WireTextOracle.pieces(input.bytes.dropFirst())
            if WireTextOracle.reference(pieces).text != nil { accepted += 1 } else { refused += 1 }
        }
        #expect(replay.corpusCount >= 13)
        #expect(replay.problems == [])
        // Both sides of the oracle are exercised.
        #expect(accepted >= 300 && refused >= 300, "\(accepted) accepted, \(refused) refused")
    }

    @Test("every daily-request corpus and crash input, and 2,000 seeded mutations, keep DailyStepsRequest.parse's promises")
    func dailyRequest() throws {
        var accepted = 0, refused = Set<String>()
        let replay = try FuzzReplay("daily-request", mutations: 2_000, seed: 11, oracle: DailyRequestOracle.problems) { input in
            let given = input.bytes.withUnsafeBytes(DailyRequestOracle.parameters)
            do {
                _ = try DailyStepsRequest.parse(from: given.from, to: given.to, tz: given.tz, priority: given.priority)
                accepted += 1
            } catch let error as DailyStepsError {
                refused.insert(error.kind)
            }
        }
        #expect(replay.corpusCount >= 15)
        #expect(replay.problems == [])
        // Both sides of the oracle ran: acceptances and every kind of refusal of the parameters.
        #expect(accepted >= 10)
        #expect(refused == ["invalid_date", "invalid_span", "invalid_tz", "invalid_priority"])
    }

    @Test("every wire-delete corpus and crash input, and 1,000 seeded mutations, keep DeletionRequest's promises")
    func wireDelete() throws {
        var accepted = 0, refused = Set<String>()
        let replay = try FuzzReplay("wire-delete", mutations: 1_000, seed: 12, oracle: DeletionOracle.problems) { input in
            do throws(DeletionRequestError) {
                _ = try DeletionRequest.parse(Data(input.bytes.dropFirst()), type: (input.bytes.first ?? 0) % 2 == 0 ? .stepCount : nil)
                accepted += 1
            } catch {
                refused.insert(error.kind)
            }
        }
        #expect(replay.corpusCount >= 12)
        #expect(replay.problems == [])
        #expect(accepted >= 5)
        #expect(refused == ["malformed_json", "missing_field", "wrong_type", "invalid_type", "invalid_uuid"])
    }

    @Test("every series-parts corpus and crash input, and 2,000 seeded mutations, keep the series readers' promises (issue 31)")
    func seriesParts() throws {
        var accepted = (routes: 0, electrocardiograms: 0)
        let replay = try FuzzReplay("series-parts", mutations: 2_000, seed: 31, oracle: SeriesPartsOracle.problems) { input in
            let details = String(decoding: input.bytes.dropFirst(), as: UTF8.self)
            if (input.bytes.first ?? 0) % 2 == 0 {
                if (try? RoutePart(details: details)) != nil { accepted.routes += 1 }
            } else if (try? ElectrocardiogramPart(details: details)) != nil {
                accepted.electrocardiograms += 1
            }
        }
        #expect(replay.corpusCount >= 8)
        #expect(replay.problems == [])
        // Both sides of each reader are reached: accepted parts (answers built) and refusals.
        #expect(accepted.routes >= 3 && accepted.electrocardiograms >= 2)
    }

    @Test("every wire-stored corpus and crash input, and 1,000 seeded mutations, read as stored lines of their type")
    func wireStored() throws {
        var acceptedTypes = Set<SampleType>()
        let replay = try FuzzReplay("wire-stored", mutations: 1_000, seed: 13, oracle: StoredLineOracle.problems) { input in
            let type = StoredLineOracle.types[Int(input.bytes.first ?? 0) % StoredLineOracle.types.count]
            if (try? WireDecoder.decodeStoredSample(Array(input.bytes.dropFirst()), type: type)) != nil { acceptedTypes.insert(type) }
        }
        #expect(replay.corpusCount >= 19)
        #expect(replay.problems == [])
        // Accepted lines of steps, a quantity, a category and a workout, not only refusals.
        #expect(acceptedTypes.isSuperset(of: [.stepCount, .heartRate, .sleepAnalysis, SampleType("HKWorkoutTypeIdentifier")]))
    }

    @Test("the oracles catch what they are meant to: a wrong instant, a long echo, a sample that does not re-encode")
    func oraclesCanFail() {
        #expect(WireOracle.errorProblems(.malformedJSON(String(repeating: "x", count: 500)), index: nil).count == 1)
        #expect(WireOracle.errorProblems(.missingField("uuid", index: 3), index: 7).count == 1)
        let bad = WireSample(uuid: UUID(), startMs: Instants.max + 1, endMs: 0, count: -1, sourceBundleId: "", sourceDeviceName: nil)
        #expect(WireOracle.sampleProblems(bad, index: 0).count == 3)
        #expect(WireOracle.hasSurrogateEscape(#""\uDE00""#) && WireOracle.hasSurrogateEscape(#""\ud800""#))
        #expect(!WireOracle.hasSurrogateEscape(#""\u00e9\\uD800""#))
        #expect(Array("2025-05-11T16:27:22.5+02:00".utf8).withUnsafeBytes { RFC3339Fields($0)?.inRange } == true)
        #expect(Array("2025-02-29T16:27:22Z".utf8).withUnsafeBytes { RFC3339Fields($0)?.inRange } == false)
    }
}

/// What fuzzing found in the core's parsers, each pinned by its exact outcome (the inputs are in `Fuzz/Crashes/`).
@Suite("Fuzz findings: the wire")
struct WireFuzzFindingTests {
    @Test("129-digit values are read correctly rounded, as Double(String) does; Foundation's NSDecimalNumber.doubleValue is 1 and 4 ulps off and the oracle reads its text instead (seed-129-digit-value*, wire-samples 2026-11-25)")
    func longIntegerValue() throws {
        for (name, ulps) in [("seed-129-digit-value", 1), ("seed-129-digit-value-zeros", 4)] as [(String, UInt64)] {
            let file = try #require(try FuzzCorpus("wire-samples").corpus.first { $0.name.hasSuffix(name) })
            let text = String(decoding: file.bytes, as: UTF8.self)
            let digits = String(try #require(text.components(separatedBy: #""value":"#).last?.prefix { $0.isNumber }))
            #expect(digits.count == 129)
            let samples = try WireDecoder.decodeSamplesRequest(file.bytes)
            #expect(samples[0].value.bitPattern == Double(digits)!.bitPattern, "the parser rounds correctly")
            let foundation = try #require(JSONSerialization.jsonObject(with: Data(#"{"v":\#(digits)}"#.utf8)) as? [String: Any])
            let decimal = try #require(foundation["v"] as? NSDecimalNumber)
            #expect(samples[0].value.bitPattern - decimal.doubleValue.bitPattern == ulps, "Foundation's doubleValue is off")
            #expect(WireOracle.sameNumber(decimal, samples[0].value))
            #expect(!WireOracle.sameNumber(decimal, samples[0].value.nextUp.nextUp))
            #expect(file.bytes.withUnsafeBytes(WireOracle.samplesRequestProblems) == [])
        }
    }

    @Test("a date followed by 200 combining accents is quoted to 64 scalars, not 64 characters (crash-review-grapheme-date)")
    func graphemeEcho() throws {
        let inputs = try FuzzCorpus("wire-line").crashes.filter { $0.name.hasSuffix("crash-review-grapheme-date") }
        let line = try #require(inputs.first).bytes
        let date = "2025-05-11T16:27:22.000Z"
        #expect(throws: WireError.self) { try WireDecoder.decodeSample(line) }
        do {
            _ = try WireDecoder.decodeSample(line)
        } catch {
            #expect(error.kind == "invalid_date" && error.field == "startDate")
            #expect(error.description == "field \"startDate\" \"\(date)\(String(repeating: "\u{301}", count: 40))…\" is not an ISO-8601 date such as 2025-05-11T16:27:22.000Z")
            #expect(error.description.utf8.count < 200)
        }
    }

    @Test("a type identifier of one character with 1,000 accents is quoted to 64 scalars")
    func graphemeType() throws {
        let type = SampleType(rawValue: "A" + String(repeating: "\u{301}", count: 1_000))
        let problem = try #require(SampleValidation.typeProblem(type))
        #expect(problem.detail == "\"A\(String(repeating: "\u{301}", count: 63))…\" is not a type identifier such as HKQuantityTypeIdentifierStepCount")
    }

    @Test("InputExcerpt keeps 64 scalars and marks a cut", arguments: [
        (String(repeating: "x", count: 64), String(repeating: "x", count: 64)),
        (String(repeating: "x", count: 65), String(repeating: "x", count: 64) + "…"),
        ("", ""),
        ("e\u{301}", "e\u{301}"),
    ])
    func excerpt(text: String, quoted: String) {
        #expect(InputExcerpt.of(text).unicodeScalars.elementsEqual(quoted.unicodeScalars))
    }
}

/// What fuzzing found in (or pinned on) the daily totals' request parameters, each with its exact outcome.
@Suite("Fuzz findings: GET /steps/daily's parameters")
struct DailyRequestFuzzFindingTests {
    func error(_ body: () throws -> Any) throws -> DailyStepsError {
        try #require(throws: DailyStepsError.self) { _ = try body() }
    }

    @Test("a zone and a date of one character with 1,000 accents, and a repeated name with 500, are quoted to 64 scalars")
    func graphemeEcho() throws {
        let accents = String(repeating: "\u{301}", count: 1_000)
        let accents500 = String(repeating: "\u{301}", count: 500)  // a name stays under 1,024 bytes
        let quoted = "\"A\(String(repeating: "\u{301}", count: 63))…\""
        let tz = try error { try DailyStepsRequest.parse(from: "2024-05-11", to: "2024-05-11", tz: "A" + accents, priority: nil) }
        #expect(tz.description.unicodeScalars.elementsEqual("tz: \(quoted) is not an IANA time zone name such as Europe/Berlin or America/New_York (names are case-sensitive)".unicodeScalars))
        let date = try error { try DailyStepsRequest.parse(from: "A" + accents, to: "2024-05-11", tz: "UTC", priority: nil) }
        #expect(date.description.unicodeScalars.elementsEqual("from: \(quoted) is not a date YYYY-MM-DD (years 0001…9999), such as 2025-05-11".unicodeScalars))
        let twice = try error {
            try DailyStepsRequest.parse(from: "2024-05-11", to: "2024-05-11", tz: "UTC", priority: "A\(accents500),a\(accents500)")
        }
        #expect(twice.description.unicodeScalars.elementsEqual("priority: lists \"a\(String(repeating: "\u{301}", count: 63))…\" twice".unicodeScalars))
        // Before: String.prefix(64) kept the whole character, 2,000 bytes of accents.
        #expect(tz.description.utf8.count < 250 && date.description.utf8.count < 250 && twice.description.utf8.count < 250)
    }

    @Test("a comma followed by a combining accent separates two device names (daily-request seed-comma-accent)")
    func commaWithAccent() throws {
        // As Characters, "," + U+0301 is one character that is not ",": the list was one name "Apple Watch,́iPhone".
        let request = try DailyStepsRequest.parse(from: "2024-05-11", to: "2024-05-11", tz: "UTC",
                                                  priority: "Apple Watch,\u{301}iPhone, Garmin")
        #expect(request.priority.names.map { Array($0.unicodeScalars) }
            == [Array("Apple Watch".unicodeScalars), Array("\u{301}iPhone".unicodeScalars), Array("Garmin".unicodeScalars)])
        #expect(request.priority.rank(ofDevice: "Garmin") == 2)
    }

    @Test("the daily oracle catches what it is meant to: a wrong parameter named, a long echo, a date read wrongly")
    func oracleCanFail() throws {
        #expect(DailyRequestOracle.date("2000-02-29")?.days == 730_178 && DailyRequestOracle.date("1900-02-29") == nil)
        #expect(DailyRequestOracle.date("0001-01-01")?.days == 0 && DailyRequestOracle.date("0000-01-01") == nil)
        #expect(DailyRequestOracle.names("a,\u{301}b") == ["a", "\u{301}b"])
        #expect(DailyRequestOracle.names("a, A") == nil && DailyRequestOracle.names("") == nil)
        let zone = try error { try DailyStepsRequest.parse(from: "2024-05-11", to: "2024-05-11", tz: "Mars", priority: nil) }
        #expect(DailyRequestOracle.errorProblems(zone, expected: ("to", "invalid_span")).count == 1)
        #expect(DailyRequestOracle.errorProblems(zone, expected: nil) == [])
        let request = try DailyStepsRequest.parse(from: "2024-05-11", to: "2024-05-12", tz: "UTC", priority: nil)
        #expect(DailyRequestOracle.requestProblems(request, ("2024-05-11", "2024-05-13", "UTC", "iPhone")).count == 2)
    }
}

/// The deletions body, moved out of the sink into the core so that it is fuzzed (`wire-delete`).
@Suite("Fuzz findings: deletion bodies")
struct DeletionFuzzFindingTests {
    @Test("a uuid of one character with 1,000 accents is quoted to 64 scalars, not whole (the sink used String.prefix(64))")
    func graphemeUUID() throws {
        let body = Data(#"{"uuids":["A\#(String(repeating: "\u{301}", count: 1_000))"]}"#.utf8)
        let error = try #require(throws: DeletionRequestError.self) { try DeletionRequest.parse(body, type: .stepCount) }
        #expect(error.kind == "invalid_uuid" && error.field == "uuids")
        #expect(error.message.unicodeScalars.elementsEqual("uuids[0]: \"A\(String(repeating: "\u{301}", count: 63))…\" is not a UUID".unicodeScalars))
    }

    @Test("each refusal keeps the sink's message and names its field", arguments: [
        (#"{"uuids":"#, nil as SampleType?, "malformed JSON: expected {\"type\":\"<type>\",\"uuids\":[\"<UUID>\",…]}", nil as String?),
        (#"[]"#, .stepCount, "malformed JSON: expected {\"uuids\":[\"<UUID>\",…]}", nil),
        (#"{"uuids":[]}"#, nil, "field \"type\" is missing", "type"),
        (#"{"type":[],"uuids":[]}"#, nil, "field \"type\" must be a string", "type"),
        (#"{"type":"HK Nope","uuids":[]}"#, nil, "type \"HK Nope\" is not a type identifier such as HKQuantityTypeIdentifierStepCount", "type"),
        (#"{"type":"HKNope"}"#, .stepCount, "field \"uuids\" is missing", "uuids"),
        (#"{"uuids":{}}"#, .stepCount, "field \"uuids\" must be an array of strings", "uuids"),
        (#"{"uuids":["0A1B2C3D-4E5F-4061-8273-94A5B6C7D8E9",null]}"#, .stepCount, "uuids[1]: a null is not a UUID", "uuids"),
        (#"{"uuids":[1.5]}"#, .stepCount, "uuids[0]: a number is not a UUID", "uuids"),
    ])
    func refusals(body: String, type: SampleType?, message: String, field: String?) throws {
        let error = try #require(throws: DeletionRequestError.self) { try DeletionRequest.parse(Data(body.utf8), type: type) }
        #expect(error.message == message)
        #expect(error.field == field)
    }

    @Test("a typed body reads its type and its uuids in order, repeats kept")
    func accepted() throws {
        let a = try #require(UUID(uuidString: "0A1B2C3D-4E5F-4061-8273-94A5B6C7D8E9"))
        let b = try #require(UUID(uuidString: "f47ac10b-58cc-4372-a567-0e02b2c3d479"))
        let request = try DeletionRequest.parse(Data(WireEncoder.encodeDeletions([b, a, b], type: .heartRate)), type: nil)
        #expect(request.type == .heartRate && request.uuids == [b, a, b])
    }

    @Test("every hae-payload corpus and crash input, and 1,500 seeded mutations, keep HAEPayloadReader's promises")
    func haePayload() throws {
        var accepted = 0
        let replay = try FuzzReplay("hae-payload", mutations: 1_500, seed: 34, oracle: HAEPayloadOracle.problems) { input in
            if input.bytes.count > 1,
               let reading = try? HAEPayloadReader(aggregation: .none).read(Data(input.bytes.dropFirst())),
               !reading.samples.isEmpty {
                accepted += 1
            }
        }
        #expect(replay.corpusCount >= 10)
        #expect(replay.problems == [])
        #expect(accepted >= 7)
    }
}
