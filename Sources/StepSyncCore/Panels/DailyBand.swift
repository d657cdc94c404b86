import Foundation

/// Per local day, the count, minimum, average, maximum and sum of one type's values: the heart-rate band of the
/// dashboard (`GET /samples/daily?type=T&from=&to=&tz=`), for discrete and cumulative quantity types alike.
///
/// **Rule.** A sample belongs to the local day (of the request's zone) in which it **starts**, whole: a reading is an
/// instant, and a cumulative sample that crosses midnight is not split (unlike the step totals, whose
/// ``DailyStepTotals`` splits and de-duplicates; use `/steps/daily` for steps). Samples from every source count. The
/// sum is meaningful for cumulative types (``SampleKind/cumulative``); for discrete ones it is given all the same.
/// The answer's `unit` is the unit of the first sample added (a type is stored in one unit by every exporter seen).
///
/// Fed page by page (``add(_:)``), it holds one accumulator per day: memory is bounded by the request's days, not
/// by the samples.
public struct DailyBand: Sendable {
    /// One local day's figures.
    public struct Day: Hashable, Sendable {
        /// The local date.
        public var date: CivilDate
        /// How many samples started on that day.
        public var samples: Int = 0
        /// The smallest value, `nil` without samples.
        public var min: Double?
        /// The largest value, `nil` without samples.
        public var max: Double?
        /// The sum of the values (0 without samples).
        public var sum: Double = 0

        /// The mean of the values, `nil` without samples.
        public var average: Double? { samples > 0 ? sum / Double(samples) : nil }
    }

    /// The type summarised.
    public let type: SampleType
    /// The request (days and zone).
    public let request: DailyStepsRequest
    /// The days with their UTC boundaries.
    public let localDays: LocalDays
    /// Every day of the request, in order.
    public private(set) var days: [Day]
    /// The unit of the first sample added, `nil` before.
    public private(set) var unit: String?

    /// An empty band over the request's days.
    public init(type: SampleType, request: DailyStepsRequest) {
        self.type = type
        self.request = request
        let local = request.days
        localDays = local
        days = (0..<local.count).map { Day(date: local.date(at: $0)) }
    }

    /// The UTC span (ms, half-open) whose samples count: read the storage with it as the start range.
    public var startRange: Range<Int64> { localDays.span.start..<localDays.span.end }

    /// Adds the samples of `type` that start within the request's days; others are ignored.
    public mutating func add(_ samples: [HealthSample]) {
        for sample in samples where sample.type == type {
            guard let index = localDays.index(containing: sample.startMs) else { continue }
            if unit == nil { unit = sample.unit }
            let value = sample.value
            days[index].samples += 1
            days[index].sum += value
            days[index].min = Swift.min(days[index].min ?? value, value)
            days[index].max = Swift.max(days[index].max ?? value, value)
        }
    }

    /// The answer when no dates were named and `type` has no samples: no days, `from`, `to` and `unit` `null`.
    public static func emptyJSON(type: SampleType, timeZoneName: String) -> String {
        "{\"type\":" + PanelJSON.quoted(type.rawValue) + ",\"kind\":\"\(type.kind.rawValue)\",\"unit\":null,"
            + PanelJSON.rangeHead(timeZoneName: timeZoneName, from: nil, to: nil) + ",\"days\":[]}"
    }

    /// The answer as compact JSON: `{"type":T,"kind":"discrete","unit":"count/min","tz":…,"from":…,"to":…,
    /// "days":[{"date":"2025-05-11","samples":3,"min":52,"average":61.333,"max":75,"sum":184},…]}`; `min`, `average`
    /// and `max` are `null` on a day without samples; numbers are rounded to a thousandth.
    public var json: String {
        var out = "{\"type\":" + PanelJSON.quoted(type.rawValue) + ",\"kind\":\"\(type.kind.rawValue)\",\"unit\":"
            + (unit.map(PanelJSON.quoted) ?? "null") + ","
            + PanelJSON.rangeHead(timeZoneName: request.timeZoneName, from: days.first?.date, to: days.last?.date)
            + ",\"days\":["
        out.reserveCapacity(out.utf8.count + days.count * 90)
        for (i, day) in days.enumerated() {
            if i > 0 { out += "," }
            out += "{\"date\":\"\(day.date)\",\"samples\":\(day.samples),\"min\":\(PanelJSON.number(day.min))"
                + ",\"average\":\(PanelJSON.number(day.average)),\"max\":\(PanelJSON.number(day.max))"
                + ",\"sum\":\(PanelJSON.number(day.sum))}"
        }
        return out + "]}"
    }
}
