import Foundation
import Testing
@testable import StepSyncCore

/// Route and ECG parts: cut under the details limit, read back exactly, named the same every time.
@Suite struct SeriesPartTests {
    /// A two-hour run a point a second, with every extension; every 97th point without elevation or accuracies.
    static func run(points: Int = 7_200) -> [RoutePoint] {
        (0..<points).map { i in
            let t = 1_748_797_500_000 + Int64(i) * 1000
            let missing = i % 97 == 0
            return RoutePoint(timeMs: t, latitude: 52.520008 + Double(i) * 1.3e-5, longitude: 13.404954 - Double(i) * 7.1e-6,
                              elevation: missing ? nil : 34.5 + Double(i % 40) / 10, speed: 2.87 + Double(i % 13) / 100,
                              course: Double(i % 360) + 0.25, horizontalAccuracy: missing ? nil : 3.1,
                              verticalAccuracy: missing ? nil : 2.4)
        }
    }

    @Test func routeSplitsUnderTheLimitAndReadsBackInOrder() throws {
        let workout = UUID(uuidString: "0E1F6A52-3C3B-4F0D-9A8B-7C6D5E4F3A21")!
        let points = Self.run()
        let parts = RoutePart.split(points, workout: workout, file: "/workout-routes/route_2025-06-01_7.05pm.gpx")
        #expect(parts.count > 1)
        #expect(parts.map(\.index) == Array(0..<parts.count))
        #expect(Set(parts.map(\.uuid)).count == parts.count)
        var back: [RoutePoint] = []
        for part in parts {
            let json = part.detailsJSON
            #expect(json.utf8.count <= SeriesLimits.maxPartDetailsBytes)
            let read = try RoutePart(details: json)
            #expect(read == part)
            back += read.points
        }
        #expect(back == points)
        // The same route gives the same names (a re-import adds nothing).
        #expect(RoutePart.split(points, workout: workout, file: nil).map(\.uuid) == parts.map(\.uuid))
    }

    @Test func routePartSampleCarriesTheWorkoutsSourceAndItsSpan() throws {
        let workout = HealthSample(uuid: UUID(), type: .workout, startMs: 1_748_797_000_000, endMs: 1_748_805_000_000,
                                   utcOffsetSeconds: 7200, value: 8000, unit: "s", sourceName: "Anna's Apple Watch",
                                   sourceBundleId: "com.apple.health.X", deviceName: "Apple Watch", deviceModel: "Watch6,2")
        let parts = RoutePart.split(Self.run(points: 10), workout: workout.uuid, file: nil)
        let sample = try #require(parts.first?.sample(of: workout))
        #expect(sample.type == .workoutRoute && sample.type.kind == .series)
        #expect(sample.startMs == 1_748_797_500_000 && sample.endMs == 1_748_797_509_000)
        #expect(sample.value == 10 && sample.sourceName == "Anna's Apple Watch" && sample.utcOffsetSeconds == 7200)
        #expect(SampleValidation.valueProblem(sample.value, type: sample.type, kind: .series) == nil)
    }

    @Test func electrocardiogramSplitsAndReadsBack() throws {
        let voltages = (0..<15_360).map { i in (sin(Double(i) / 40) * 900 * 1000).rounded() / 1000 - 265.868 }
        let header = ElectrocardiogramHeader(recordedMs: 1_749_110_820_000, utcOffsetSeconds: 7200,
                                             classification: "Sinusrhythmus", symptoms: "Keine", softwareVersion: "1.70",
                                             device: "Watch6,2", sampleRateHz: 512, lead: "Lead I", unit: "µV",
                                             voltageCount: voltages.count)
        let parts = ElectrocardiogramPart.split(voltages, header: header)
        #expect(parts.count >= 2)
        #expect(parts[0].uuid == ElectrocardiogramPart.recordingUUID(recordedMs: header.recordedMs, sampleRateHz: 512,
                                                                      voltageCount: 15_360))
        var back: [Double] = []
        for part in parts {
            let json = part.detailsJSON
            #expect(json.utf8.count <= SeriesLimits.maxPartDetailsBytes)
            let read = try ElectrocardiogramPart(details: json)
            #expect(read == part)
            #expect(read.first == back.count)
            back += read.microvolts
        }
        #expect(back == voltages)
        let samples = parts.map { $0.sample(sourceName: "EKG", sourceBundleId: "com.apple.NanoHeartRhythm") }
        #expect(samples.first?.startMs == header.recordedMs)
        #expect(samples.last?.endMs == header.recordedMs + 30_000)
        #expect(samples.reduce(0) { $0 + $1.value } == 15_360)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.endMs == $1.startMs })
    }

    @Test func detailsThatAreNotAPartAreRefusedByName() {
        #expect(throws: SeriesDetailsError.self) { try RoutePart(details: #"{"workout":"x"}"#) }
        let uneven = #"{"workout":"0E1F6A52-3C3B-4F0D-9A8B-7C6D5E4F3A21","part":0,"parts":1,"time":[1,2],"lat":[1],"lon":[1,2]}"#
        #expect((try? RoutePart(details: uneven)) == nil)
        #expect(throws: SeriesDetailsError.self) { try ElectrocardiogramPart(details: "{}") }
    }

    @Test func layeringBoundsSeriesIntervalsByParts() {
        let limits = LayeringLimits()
        #expect(limits.engine(for: .workoutRoute).maxSamples == SeriesLimits.maxPartsPerInterval)
        #expect(limits.engine(for: .heartRate).maxSamples == 5_000)
    }
}

extension SeriesPartTests {
    @Test func requestsPackNoMoreSeriesPartsThanOneInterval() {
        func interval(_ id: Int64, _ type: SampleType, samples: Int) -> SyncInterval {
            SyncInterval(id: id, type: type, range: TimeRange(start: id * 1000, end: id * 1000 + 1000),
                         steps: 0, samples: samples)
        }
        let routes = (1...10).map { interval($0, .workoutRoute, samples: 5) }
        #expect(RequestPacking.count(routes, maxSamples: 5_000) == 3)
        let beats = (1...10).map { interval($0, .heartRate, samples: 5) }
        #expect(RequestPacking.count(beats, maxSamples: 5_000) == 10)
    }
}

extension SeriesPartTests {
    @Test func seriesTypesHaveShortNames() {
        #expect(SampleType.workoutRoute.shortName == "WorkoutRoute")
        #expect(SampleType.electrocardiogram.shortName == "Electrocardiogram")
        #expect(SampleType("HKDataTypeSleepDurationGoal").shortName == "SleepDurationGoal")
    }
}
