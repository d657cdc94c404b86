/// Reads `sleep_analysis` points into `HKCategoryTypeIdentifierSleepAnalysis` samples (value a ``SleepStage``
/// code), in the two shapes the app writes:
/// - **staged** (`startDate`, `endDate`, `value` one of Core, Deep, REM, Awake, Asleep, In Bed, Unspecified): one
///   sample per segment, named by its start, length and stage;
/// - **summarized** (hours per stage, `sleepStart`/`inBedStart`; `date` a day or a date-time; `totalSleep` may be
///   absent): core, deep, REM, unspecified asleep (only when no stage is given) and awake laid end to end from
///   `sleepStart`, and in bed from `inBedStart`, each `hours × 3600` seconds long — so `/sleep/nights` answers each
///   stage's seconds as the app summed them. Each is named by the night's start and its stage, so a night re-sent
///   longer replaces the shorter one.
struct HAESleepReader {
    let reader: HAEPayloadReader

    static let stages: [String: SleepStage] = [
        "core": .asleepCore, "deep": .asleepDeep, "rem": .asleepREM, "awake": .awake, "asleep": .asleepUnspecified,
        "in bed": .inBed, "inbed": .inBed, "unspecified": .asleepUnspecified,
    ]

    func read(_ point: [String: JSONValue], metric: String, index: Int, into reading: inout HAEReading) {
        if point["startDate"] != nil { return readStaged(point, metric: metric, index: index, into: &reading) }
        let source = HAEPayloadReader.source(point)
        let sleepStart = point["sleepStart"]?.string.flatMap(HAEDate.parse)
        let inBedStart = point["inBedStart"]?.string.flatMap(HAEDate.parse)
        guard let start = sleepStart ?? inBedStart ?? point["date"]?.string.flatMap(HAEDate.parseDay) else {
            return reading.skip(metric, index, "unreadableDate")
        }
        var hours: [(SleepStage, String, Double)] = []
        for (key, stage) in [("core", SleepStage.asleepCore), ("deep", .asleepDeep), ("rem", .asleepREM),
                             ("asleep", .asleepUnspecified), ("awake", .awake), ("inBed", .inBed)] {
            guard let raw = point[key] else { continue }
            guard let value = raw.number else { return reading.skip(metric, index, "invalidValue") }
            guard value.isFinite else { return reading.skip(metric, index, "nonFiniteValue") }
            guard value >= 0 else { return reading.skip(metric, index, "negativeValue") }
            guard value <= 48 else { return reading.skip(metric, index, "invalidValue") }
            hours.append((stage, key, value))
        }
        let staged = hours.contains { [.asleepCore, .asleepDeep, .asleepREM].contains($0.0) && $0.2 > 0 }
        var made: [HealthSample] = []
        var cursor = start.ms
        for (stage, key, value) in hours where value > 0 {
            if stage == .asleepUnspecified, staged { continue }
            let length = Int64((value * 3_600_000).rounded())
            let from = stage == .inBed ? (inBedStart ?? start).ms : cursor
            guard let sample = reader.sample(
                type: .sleepAnalysis, startMs: from, endMs: from + length, offset: start.offsetSeconds,
                value: Double(stage.rawValue), unit: "", source: source, role: "night." + key, metric: metric,
                index: index, into: &reading,
                uuid: HAEPointIdentity.uuid(type: .sleepAnalysis, source: source, startMs: start.ms, lengthMs: 0,
                                            role: "night." + key))
            else { return }
            if stage != .inBed { cursor += length }
            made.append(sample)
        }
        reading.samples += made
    }

    private func readStaged(_ point: [String: JSONValue], metric: String, index: Int, into reading: inout HAEReading) {
        guard let start = point["startDate"]?.string.flatMap(HAEDate.parse),
              let end = point["endDate"]?.string.flatMap(HAEDate.parse) else {
            return reading.skip(metric, index, "unreadableDate")
        }
        guard let name = point["value"]?.string, let stage = Self.stages[name.lowercased()] else {
            return reading.skip(metric, index, "unknownSleepStage")
        }
        let source = HAEPayloadReader.source(point)
        if let sample = reader.sample(type: .sleepAnalysis, startMs: start.ms, endMs: end.ms, offset: start.offsetSeconds,
                                      value: Double(stage.rawValue), unit: "", source: source, role: stage.key,
                                      metric: metric, index: index, into: &reading) {
            reading.samples.append(sample)
        }
    }
}
