import Foundation

/// Seconds per sleep stage for every night of a range: the dashboard's sleep panel (`GET /sleep/nights?from=&to=&tz=`).
///
/// **The night rule.** The night named `D` is the local span from **noon on `D` to noon on `D + 1`** in the
/// request's zone: the evening of `D`, the night, and the morning after. A sleep sample belongs to the night in which
/// it **starts**, whole (a night that begins at 03:00 is still the previous evening's; a stage that runs past noon is
/// not cut). So every sample belongs to exactly one night, and an afternoon nap counts towards the night that follows
/// it. `from`…`to` name the nights by their evenings; a night over a clock change is an hour longer or shorter, as
/// noon is local. **Each instant counts once**: a stage's seconds are the length of the union of its samples
/// (``IntervalUnion``), so an iPhone and a Watch recording the same night, or a sample sent twice under two uuids,
/// do not double it; `asleep` is the union of the four sleep stages' samples together (a minute one source calls
/// core and another unspecified is one minute asleep). A value that is not one of HealthKit's six codes
/// (``SleepStage``) is left out.
///
/// Fed page by page in any order (``add(_:)``); memory is bounded by the nights and their disjoint spans, not the
/// samples.
public struct SleepNights: Sendable {
    /// One night: the spans of each stage, indexed by ``SleepStage/rawValue``, and of the sleep stages together.
    public struct Night: Hashable, Sendable {
        /// The local date of the evening.
        public var date: CivilDate
        /// The union of each stage's samples, stage code 0…5.
        public var stages: [IntervalUnion] = Array(repeating: IntervalUnion(), count: SleepStage.allCases.count)
        /// The union of the samples of the four sleep stages.
        public var asleep = IntervalUnion()
        /// How many samples the night holds.
        public var samples: Int = 0

        /// Milliseconds of `stage`, each instant once.
        public func milliseconds(_ stage: SleepStage) -> Int64 { stages[stage.rawValue].length }
        /// Seconds of `stage`, each instant once.
        public func seconds(_ stage: SleepStage) -> Double { Double(milliseconds(stage)) / 1000 }
        /// Seconds asleep in any of the four sleep stages, each instant once.
        public var asleepSeconds: Double { Double(asleep.length) / 1000 }
    }

    /// The request: the evenings `from…to` and the zone.
    public let request: DailyStepsRequest
    /// `count + 1` instants (UTC ms): noon of each evening, then noon after the last.
    public let boundaries: [Int64]
    /// Every night of the request, in order.
    public private(set) var nights: [Night]

    /// Empty nights for the evenings of `request`.
    public init(request: DailyStepsRequest) {
        self.request = request
        boundaries = (request.from.daysSinceEpoch...(request.to.daysSinceEpoch + 1))
            .map { Self.noon(daysSinceEpoch: $0, in: request.timeZone) }
        nights = (0...request.from.distance(to: request.to)).map { Night(date: request.from.advanced(by: $0)) }
    }

    /// The UTC span (ms, half-open) whose samples count: read the storage with it as the start range.
    public var startRange: Range<Int64> { boundaries[0]..<boundaries[boundaries.count - 1] }

    /// The evening whose night holds instant `ms` in `zone`: the local date of the instant twelve wall-clock hours
    /// earlier (the date of `ms` when it is after noon, else the day before).
    public static func evening(ofMs ms: Int64, in zone: TimeZone) -> CivilDate {
        let date = CivilDate.local(ofMs: ms, in: zone)
        return ms >= noon(daysSinceEpoch: date.daysSinceEpoch, in: zone) ? date : date.advanced(by: -1)
    }

    /// 12:00 local time on the day `daysSinceEpoch` in `zone`, as a UTC instant (ms). Offsets are looked up at
    /// that noon (no zone changes its clock at midday).
    public static func noon(daysSinceEpoch day: Int, in zone: TimeZone) -> Int64 {
        let wall = Int64(day) * 86_400 + 43_200
        let guess = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall)))
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall - Int64(guess))))
        return (wall - Int64(offset)) * 1000
    }

    /// Adds the sleep-analysis samples among `samples` that start within the request's nights.
    public mutating func add(_ samples: [HealthSample]) {
        for sample in samples where sample.type == .sleepAnalysis {
            guard sample.value.rounded() == sample.value, let stage = SleepStage(rawValue: Int(exactly: sample.value) ?? -1),
                  let index = night(containing: sample.startMs) else { continue }
            let span = sample.startMs..<max(sample.startMs, sample.endMs)
            nights[index].stages[stage.rawValue].insert(span)
            if stage.isAsleep { nights[index].asleep.insert(span) }
            nights[index].samples += 1
        }
    }

    /// The index of the night holding `ms`, or `nil` outside.
    private func night(containing ms: Int64) -> Int? { LocalDays.index(containing: ms, boundaries: boundaries) }

    /// The answer when no dates were named and no sleep is stored: no nights, `from` and `to` `null`.
    public static func emptyJSON(timeZoneName: String) -> String {
        "{" + PanelJSON.rangeHead(timeZoneName: timeZoneName, from: nil, to: nil) + ",\"nights\":[]}"
    }

    /// The answer as compact JSON: `{"tz":…,"from":…,"to":…,"nights":[{"date":"2025-05-11","samples":14,"inBed":28800,
    /// "asleepUnspecified":0,"awake":420,"asleepCore":14400,"asleepDeep":3600,"asleepREM":5400,"asleep":23400},…]}`,
    /// every night of the range in order, seconds rounded to a thousandth.
    public var json: String {
        var out = "{" + PanelJSON.rangeHead(timeZoneName: request.timeZoneName, from: nights.first?.date,
                                            to: nights.last?.date) + ",\"nights\":["
        out.reserveCapacity(out.utf8.count + nights.count * 150)
        for (i, night) in nights.enumerated() {
            if i > 0 { out += "," }
            out += "{\"date\":\"\(night.date)\",\"samples\":\(night.samples)"
            for stage in SleepStage.allCases { out += ",\"\(stage.key)\":" + PanelJSON.number(night.seconds(stage)) }
            out += ",\"asleep\":" + PanelJSON.number(night.asleepSeconds) + "}"
        }
        return out + "]}"
    }
}
