import Foundation
import StepSyncCore
import Testing

@Suite("Sample kinds and the one validation")
struct SampleValidationTests {
    static func sample(
        type: SampleType = .stepCount, start: Int64 = 1_746_980_842_000, end: Int64? = nil, value: Double = 120,
        offset: Int32? = 7_200, sourceName: String = "Anna's iPhone", details: String? = nil
    ) -> HealthSample {
        HealthSample(uuid: UUID(), type: type, startMs: start, endMs: end ?? start + 60_000, utcOffsetSeconds: offset,
                     value: value, unit: "count", sourceName: sourceName, sourceBundleId: "com.apple.health",
                     deviceName: "iPhone", details: details)
    }

    @Test("kinds follow HealthKit's aggregation styles", arguments: [
        ("HKQuantityTypeIdentifierStepCount", SampleKind.cumulative),
        ("HKQuantityTypeIdentifierDistanceWalkingRunning", .cumulative),
        ("HKQuantityTypeIdentifierDistanceCycling", .cumulative),
        ("HKQuantityTypeIdentifierActiveEnergyBurned", .cumulative),
        ("HKQuantityTypeIdentifierBasalEnergyBurned", .cumulative),
        ("HKQuantityTypeIdentifierFlightsClimbed", .cumulative),
        ("HKQuantityTypeIdentifierDietaryWater", .cumulative),
        ("HKQuantityTypeIdentifierAppleExerciseTime", .cumulative),
        ("HKQuantityTypeIdentifierHeartRate", .discrete),
        ("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", .discrete),
        ("HKQuantityTypeIdentifierBodyMass", .discrete),
        ("HKQuantityTypeIdentifierBodyMassIndex", .discrete),
        ("HKQuantityTypeIdentifierOxygenSaturation", .discrete),
        ("HKQuantityTypeIdentifierBloodPressureSystolic", .discrete),
        ("HKQuantityTypeIdentifierSomethingNew", .discrete),
        ("HKDataTypeSleepDurationGoal", .discrete),
        ("HKCategoryTypeIdentifierSleepAnalysis", .category),
        ("HKCategoryTypeIdentifierMindfulSession", .category),
        ("HKCategoryTypeIdentifierHighHeartRateEvent", .category),
        ("HKWorkoutTypeIdentifier", .workout),
    ])
    func kinds(identifier: String, kind: SampleKind) {
        #expect(SampleType(identifier).kind == kind)
    }

    @Test("a valid sample has no problem, at the edges of the range too")
    func valid() {
        #expect(Self.sample().validationProblem == nil)
        #expect(Self.sample(start: Instants.min, end: Instants.max).validationProblem == nil)
        #expect(Self.sample(value: 1_000_000).validationProblem == nil)
        #expect(Self.sample(type: .heartRate, value: -3).validationProblem == nil)  // discrete: any finite value
        #expect(Self.sample(type: .sleepAnalysis, value: 3).validationProblem == nil)
        #expect(Self.sample(details: #"{"beats":[]}"#).validationProblem == nil)
    }

    @Test("each problem is found, with its stable reason and the field it names", arguments: [
        (sample(start: Instants.min - 1), SampleProblem.Reason.instantOutOfRange, "startDate"),
        (sample(end: Instants.max + 1), .instantOutOfRange, "endDate"),
        (sample(start: 2_000, end: 1_000), .endBeforeStart, "endDate"),
        (sample(value: .nan), .valueNotFinite, "value"),
        (sample(value: .infinity), .valueNotFinite, "value"),
        (sample(value: -1), .negativeValue, "value"),
        (sample(type: .distanceWalkingRunning, value: -0.5), .negativeValue, "value"),
        (sample(value: 1_000_001), .valueOutOfRange, "value"),
        (sample(type: .sleepAnalysis, value: 2.5), .valueOutOfRange, "value"),
        (sample(type: .sleepAnalysis, value: -1), .valueOutOfRange, "value"),
        (sample(offset: 19 * 3600), .invalidOffset, "utcOffset"),
        (sample(sourceName: String(repeating: "x", count: 1_025)), .fieldTooLong, "sourceName"),
        (sample(details: "{" + String(repeating: " ", count: 64 << 10) + "}"), .fieldTooLong, "details"),
        (sample(sourceName: "Anna\u{0}s Watch"), .nulCharacter, "sourceName"),
        (sample(sourceName: "\u{0}"), .nulCharacter, "sourceName"),
        (sample(type: SampleType("")), .invalidType, "type"),
        (sample(type: SampleType("../../etc/passwd")), .invalidType, "type"),
        (sample(type: SampleType(String(repeating: "A", count: 129))), .invalidType, "type"),
    ])
    func problems(sample: HealthSample, reason: SampleProblem.Reason, field: String) throws {
        let problem = try #require(sample.validationProblem)
        #expect(problem.reason == reason)
        #expect(problem.field == field)
        #expect(problem.description.hasPrefix("field \"\(field)\" "))
        #expect(problem.description.count < 200, "messages never echo long input: \(problem.description.count)")
    }

    @Test("reasons have stable snake_case keys")
    func reasonKeys() {
        #expect(SampleProblem.Reason.allCases.map(\.rawValue) == [
            "instant_out_of_range", "end_before_start", "value_not_finite", "negative_value", "value_out_of_range",
            "field_too_long", "invalid_type", "invalid_offset", "nul_character", "invalid_details",
        ])
    }
}
