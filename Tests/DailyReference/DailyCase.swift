import Foundation
import StepSyncCore

/// One daily-totals problem: samples in start order, the days, the zone, the priority, and the grain the reference
/// may use. ``random(seed:)`` makes seeded histories that hit the rule's corners.
public struct DailyCase: CustomStringConvertible, Sendable {
    /// The samples, in start order (ties in the order they were made).
    public var samples: [DailyStepTotals.Sample]
    /// The first day.
    public var from: CivilDate
    /// The last day.
    public var to: CivilDate
    /// The IANA zone.
    public var timeZoneName: String
    /// Device names, highest priority first.
    public var priority: [String]
    /// A grain every sample instant and local midnight lies on.
    public var grainMs: Int64

    /// Creates a case.
    public init(samples: [DailyStepTotals.Sample], from: CivilDate, to: CivilDate, timeZoneName: String,
                priority: [String], grainMs: Int64) {
        self.samples = samples
        self.from = from
        self.to = to
        self.timeZoneName = timeZoneName
        self.priority = priority
        self.grainMs = grainMs
    }

    /// The request the sink or the CLI would build.
    public func request() throws -> DailyStepsRequest {
        try DailyStepsRequest(from: from, to: to, timeZoneName: timeZoneName, priority: DevicePriority(priority))
    }

    /// The reference's answer, per day in millionths of a step.
    public func referenceMicroSteps() -> [Int64] {
        DailyReference.microSteps(samples, from: from, to: to, timeZone: TimeZone(identifier: timeZoneName)!,
                                  priority: priority, grainMs: grainMs)
    }

    /// The samples as step samples of a store or a sink: uuids from their index, the device name as source name too.
    public func healthSamples() -> [HealthSample] {
        samples.enumerated().map { index, sample in
            let device = sample.deviceName ?? "Health"
            let hex = String(index, radix: 16)
            return HealthSample(
                uuid: UUID(uuidString: "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex)!,
                type: .stepCount, startMs: sample.startMs, endMs: sample.endMs, value: sample.value, unit: "count",
                sourceName: device, sourceBundleId: "com.example.\(device.filter(\.isLetter).lowercased())",
                deviceName: sample.deviceName)
        }
    }

    public var description: String {
        let lines = samples.map {
            "  \(ISO8601Millis.format($0.startMs)) … \(ISO8601Millis.format($0.endMs)) \($0.value) \($0.deviceName ?? "nil")"
        }
        return "\(from)…\(to) \(timeZoneName) priority \(priority)\n" + lines.joined(separator: "\n")
    }

    /// Zones with daylight-saving changes (both directions, in each hemisphere), offsets of 30 and 45 minutes and a
    /// DST shift of 30 minutes, each with dates next to a change (or any date, for zones without one).
    public static let zones: [(name: String, dates: [CivilDate])] = [
        ("Europe/Berlin", [CivilDate(year: 2024, month: 3, day: 31), CivilDate(year: 2024, month: 10, day: 27)]),
        ("America/New_York", [CivilDate(year: 2024, month: 3, day: 10), CivilDate(year: 2024, month: 11, day: 3)]),
        ("Asia/Kolkata", [CivilDate(year: 2024, month: 5, day: 11)]),
        ("Asia/Kathmandu", [CivilDate(year: 2023, month: 12, day: 31)]),
        ("Australia/Adelaide", [CivilDate(year: 2024, month: 4, day: 7), CivilDate(year: 2024, month: 10, day: 6)]),
        ("Australia/Lord_Howe", [CivilDate(year: 2024, month: 4, day: 7), CivilDate(year: 2024, month: 10, day: 6)]),
        ("UTC", [CivilDate(year: 2024, month: 2, day: 29)]),
    ]

    /// A seeded random case: 0–40 samples from a Watch, an iPhone (names in any case), a Garmin, an Oura ring and
    /// nameless sources, of zero length to two days, many sharing starts, around a local day change near a
    /// daylight-saving change, on a 5-minute grain.
    public static func random(seed: UInt64) -> DailyCase {
        var rng = SplitMix64(seed: seed)
        let (zone, dates) = zones[Int.random(in: 0..<zones.count, using: &rng)]
        let from = dates[Int.random(in: 0..<dates.count, using: &rng)].advanced(by: -Int.random(in: 0...1, using: &rng))
        let to = from.advanced(by: Int.random(in: 0...3, using: &rng))
        let grain: Int64 = 5 * Milliseconds.minute
        let priorities: [[String]] = [["Apple Watch", "iPhone"], ["iPhone", "Apple Watch"],
                                      ["Garmin", "Apple Watch", "iPhone"], ["iphone"], ["Oura"], ["APPLE WATCH"]]
        let priority = priorities[Int.random(in: 0..<priorities.count, using: &rng)]
        let devices: [String?] = ["Apple Watch", "iPhone", "apple watch", "IPHONE", "Garmin", nil, "Oura"]
        // Starts within a day before `from` (UTC midnight) and half a day after `to`.
        let low = Int64(from.daysSinceEpoch - 1) * Milliseconds.day
        let high = Int64(to.daysSinceEpoch + 1) * Milliseconds.day + Milliseconds.day / 2
        var samples: [DailyStepTotals.Sample] = []
        var start = low + Int64.random(in: 0...((high - low) / grain), using: &rng) * grain
        for _ in 0..<Int.random(in: 0...40, using: &rng) {
            if !Bool.random(using: &rng) || samples.isEmpty {  // half share a start with the sample before
                start = low + Int64.random(in: 0...((high - low) / grain), using: &rng) * grain
            }
            let grains: Int64 = switch Int.random(in: 0..<10, using: &rng) {
            case 0: 0
            case 1...6: Int64.random(in: 1...24, using: &rng)
            case 7, 8: Int64.random(in: 25...200, using: &rng)
            default: Int64.random(in: 201...600, using: &rng)
            }
            let value: Double = switch Int.random(in: 0..<10, using: &rng) {
            case 0: 0
            case 1, 2: Double(Int.random(in: 1...100_000, using: &rng)) / 100
            default: Double(Int.random(in: 1...3_000, using: &rng))
            }
            samples.append(DailyStepTotals.Sample(startMs: start, endMs: start + grains * grain, value: value,
                                                  deviceName: devices[Int.random(in: 0..<devices.count, using: &rng)]))
        }
        // Stable sort by start: ties keep the (random) order they were made in.
        let sorted = samples.enumerated().sorted { ($0.element.startMs, $0.offset) < ($1.element.startMs, $1.offset) }
        return DailyCase(samples: sorted.map(\.element), from: from, to: to, timeZoneName: zone, priority: priority,
                         grainMs: grain)
    }
}
