/// The answer of `POST /ingest/health-auto-export`: what was stored, replaced, already there, skipped and not stored.
///
/// `{"inserted":N,"replaced":N,"duplicates":N,"skipped":{"reason":N,…},"skippedPoints":[{"metric":…,"index":N,
/// "reason":…},…],"notStored":{"array":N,…},"types":{"HK…":N,…},"unknownMetrics":[…]}`, keys of the objects sorted,
/// then `"automation":{"id":…,"name":…,"sessionId":…}` when the push named its automation (``HAEAutomation``).
public struct HAEIngestAnswer: Hashable, Sendable {
    /// Samples newly stored.
    public var inserted: Int
    /// Samples that replaced a stored one of the same uuid (a grown bucket).
    public var replaced: Int
    /// Samples already stored as they are.
    public var duplicates: Int
    /// What the reader made of the body.
    public var skipped: [String: Int]
    /// The first skipped points, named.
    public var skippedPoints: [HAEReading.SkippedPoint]
    /// Entries of arrays not stored, per array.
    public var notStored: [String: Int]
    /// Samples of the body per type.
    public var types: [SampleType: Int]
    /// Metric names kept under a type of their own.
    public var unknownMetrics: [String]
    /// The automation that sent the push, when its headers name it.
    public var automation: HAEAutomation?

    /// The answer for `reading` stored with these counts, sent by `automation`.
    public init(reading: HAEReading, inserted: Int, replaced: Int, duplicates: Int, automation: HAEAutomation? = nil) {
        self.automation = automation
        self.inserted = inserted
        self.replaced = replaced
        self.duplicates = duplicates
        skipped = reading.skipped
        skippedPoints = reading.skippedPoints
        notStored = reading.notStored
        types = reading.types
        unknownMetrics = reading.unknownMetrics
    }

    /// The answer's JSON bytes.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out += Array("{\"inserted\":\(inserted),\"replaced\":\(replaced),\"duplicates\":\(duplicates),\"skipped\":".utf8)
        Self.counts(skipped, to: &out)
        out += Array(",\"skippedPoints\":[".utf8)
        for (i, point) in skippedPoints.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += Array("{\"metric\":".utf8)
            JSONBytes.appendString(point.metric, to: &out)
            out += Array(",\"index\":\(point.index),\"reason\":".utf8)
            JSONBytes.appendString(point.reason, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out += Array("],\"notStored\":".utf8)
        Self.counts(notStored, to: &out)
        out += Array(",\"types\":".utf8)
        Self.counts(Dictionary(uniqueKeysWithValues: types.map { ($0.key.rawValue, $0.value) }), to: &out)
        out += Array(",\"unknownMetrics\":[".utf8)
        for (i, name) in unknownMetrics.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONBytes.appendString(name, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        if let automation {
            out += Array(",\"automation\":".utf8)
            automation.encode(to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static func counts(_ counts: [String: Int], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (i, key) in counts.keys.sorted().enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONBytes.appendKey(key, to: &out)
            out += Array(String(counts[key]!).utf8)
        }
        out.append(UInt8(ascii: "}"))
    }
}
