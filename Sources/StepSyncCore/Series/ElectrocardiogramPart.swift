import Foundation

/// A run of an ECG recording's voltages: the unit in which ECGs are stored, layered, synced and de-duplicated.
///
/// A recording (30 s at 512 Hz: 15,360 voltages) is cut into parts whose `details` stay under
/// ``SeriesLimits/maxPartDetailsBytes``; each part is one ``HealthSample`` of ``SampleType/electrocardiogram``: uuid
/// ``uuid(recording:index:)`` (part 0's is the recording's own uuid), start and end the instants of its first voltage
/// and just after its last, value its voltage count (unit `count`), and `details` with the whole header in every
/// part:
///
/// ```json
/// {"recording":"UUID","part":0,"parts":3,"first":0,"recorded":"2025-06-05T08:07:00.000Z","utcOffsetSeconds":7200,
///  "classification":"Sinusrhythmus","symptoms":"…","softwareVersion":"1.70","device":"Watch6,2",
///  "sampleRateHz":512,"lead":"Lead I","unit":"µV","voltageCount":15360,"microvolts":[-265.868,…]}
/// ```
public struct ElectrocardiogramPart: Hashable, Sendable {
    /// The recording's uuid (``recordingUUID(recordedMs:sampleRateHz:voltageCount:)``).
    public var recording: UUID
    /// The part's index (0-based).
    public var index: Int
    /// How many parts the recording has.
    public var count: Int
    /// The index of the part's first voltage in the recording.
    public var first: Int
    /// The recording's header.
    public var header: ElectrocardiogramHeader
    /// The part's voltages, in order, in ``ElectrocardiogramHeader/unit``.
    public var microvolts: [Double]

    /// Creates a part.
    public init(recording: UUID, index: Int, count: Int, first: Int, header: ElectrocardiogramHeader,
                microvolts: [Double]) {
        self.recording = recording
        self.index = index
        self.count = count
        self.first = first
        self.header = header
        self.microvolts = microvolts
    }

    /// The uuid of a recording: from its instant, sample rate and length, so a re-import names it the same.
    public static func recordingUUID(recordedMs: Int64, sampleRateHz: Double, voltageCount: Int) -> UUID {
        NameBasedUUID.v5(namespace: SeriesLimits.namespace,
                         name: "ecg|\(recordedMs)|\(sampleRateHz.bitPattern)|\(voltageCount)")
    }

    /// The uuid of part `index` of `recording` (part 0's is `recording`).
    public static func uuid(recording: UUID, index: Int) -> UUID {
        index == 0 ? recording
            : NameBasedUUID.v5(namespace: SeriesLimits.namespace, name: "ecg|\(recording.uuidString)|\(index)")
    }

    /// This part's uuid.
    public var uuid: UUID { Self.uuid(recording: recording, index: index) }

    /// Cuts a whole recording into parts whose details stay under `maxDetailsBytes` (``SeriesLimits``); its
    /// ``ElectrocardiogramHeader/voltageCount`` must be `microvolts.count`. A recording without voltages has none.
    public static func split(_ microvolts: [Double], header: ElectrocardiogramHeader,
                             maxDetailsBytes: Int = SeriesLimits.maxPartDetailsBytes) -> [ElectrocardiogramPart] {
        let recording = recordingUUID(recordedMs: header.recordedMs, sampleRateHz: header.sampleRateHz,
                                      voltageCount: microvolts.count)
        let probe = ElectrocardiogramPart(recording: recording, index: 0, count: 0, first: 0, header: header,
                                          microvolts: [])
        let overhead = probe.detailsJSON.utf8.count + 40
        var ranges: [Range<Int>] = []
        var start = 0
        var bytes = overhead
        var scratch: [UInt8] = []
        scratch.reserveCapacity(32)
        for (i, value) in microvolts.enumerated() {
            let cost = SeriesDetails.width(value, scratch: &scratch) + 1
            if i > start, bytes + cost > maxDetailsBytes {
                ranges.append(start..<i)
                start = i
                bytes = overhead
            }
            bytes += cost
        }
        if start < microvolts.count { ranges.append(start..<microvolts.count) }
        return ranges.enumerated().map {
            ElectrocardiogramPart(recording: recording, index: $0.offset, count: ranges.count,
                                  first: $0.element.lowerBound, header: header,
                                  microvolts: Array(microvolts[$0.element]))
        }
    }

    /// The part's `details` JSON object.
    public var detailsJSON: String {
        var out = SeriesDetails.head("recording", recording, index: index, count: count,
                                     capacity: microvolts.count * 9 + 512)
        SeriesDetails.integer("first", Int64(first), to: &out)
        JSONBytes.member("recorded", string: ISO8601Millis.format(header.recordedMs), to: &out)
        SeriesDetails.integer("utcOffsetSeconds", Int64(header.utcOffsetSeconds), to: &out)
        if let v = header.classification { JSONBytes.member("classification", string: v, to: &out) }
        if let v = header.symptoms { JSONBytes.member("symptoms", string: v, to: &out) }
        if let v = header.softwareVersion { JSONBytes.member("softwareVersion", string: v, to: &out) }
        if let v = header.device { JSONBytes.member("device", string: v, to: &out) }
        JSONBytes.member("sampleRateHz", number: header.sampleRateHz, to: &out)
        if let v = header.lead { JSONBytes.member("lead", string: v, to: &out) }
        if let v = header.unit { JSONBytes.member("unit", string: v, to: &out) }
        SeriesDetails.integer("voltageCount", Int64(header.voltageCount), to: &out)
        SeriesDetails.numbers("microvolts", microvolts.lazy.map { Optional($0) }, to: &out)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The part as a sample of ``SampleType/electrocardiogram`` from `sourceName`/`sourceBundleId` (Apple Health
    /// exports name none for ECGs: the importer passes the ECG app's), with the header's device as device model.
    public func sample(sourceName: String, sourceBundleId: String, deviceName: String? = "Apple Watch") -> HealthSample {
        let start = header.instant(ofVoltage: first)
        let end = max(start, header.instant(ofVoltage: first + microvolts.count))
        return HealthSample(
            uuid: uuid, type: .electrocardiogram, startMs: start, endMs: end,
            utcOffsetSeconds: header.utcOffsetSeconds, value: Double(microvolts.count), unit: "count",
            sourceName: sourceName, sourceBundleId: sourceBundleId, sourceVersion: header.softwareVersion,
            deviceName: deviceName, deviceModel: header.device, details: detailsJSON)
    }

    /// Reads a part back from its `details`, checking every member: the one reader of a part, where it enters
    /// (``SeriesValidation``) and where it is read back (a part stored before these checks is refused here rather
    /// than trapping a reader: `first + microvolts.count` is only computed once both are known in range).
    ///
    /// - Throws: ``SeriesDetailsError`` naming the member when the details are not an ECG part's: a key missing,
    ///   `recorded` not an instant, `parts` outside `1…`\ ``SeriesLimits/maxParts``, `part` outside `0..<parts`,
    ///   `voltageCount` outside `1…`\ ``SeriesLimits/maxVoltageCount``, `first` outside `0..<voltageCount`, no
    ///   voltages or more than the recording has after `first`, `sampleRateHz` outside ``SeriesLimits/sampleRates``,
    ///   `utcOffsetSeconds` beyond ±18 h.
    public init(details: String) throws(SeriesDetailsError) {
        try self.init(details: details, voltagesCut: false)
    }

    /// ``init(details:)``; `voltagesCut`: the `microvolts` array was emptied before (a list needs only the header),
    /// so an empty one is taken.
    init(details: String, voltagesCut: Bool) throws(SeriesDetailsError) {
        let raw = try SeriesDetails.decode(Raw.self, from: details, what: "electrocardiogram part")
        func refuse(_ field: String, _ problem: String) -> SeriesDetailsError {
            SeriesDetailsError(problem: "electrocardiogram part details: \(field) \(problem)", field: field)
        }
        guard let recordedMs = ISO8601Millis.parse(raw.recorded) else {
            throw refuse("recorded", "\(InputExcerpt.of(raw.recorded)) is not an instant in \(Instants.description)")
        }
        guard (1...SeriesLimits.maxParts).contains(raw.parts) else {
            throw refuse("parts", "\(raw.parts) is outside 1…\(SeriesLimits.maxParts)")
        }
        guard (0..<raw.parts).contains(raw.part) else { throw refuse("part", "\(raw.part) is outside 0..<\(raw.parts)") }
        guard (1...SeriesLimits.maxVoltageCount).contains(raw.voltageCount) else {
            throw refuse("voltageCount", "\(raw.voltageCount) is outside 1…\(SeriesLimits.maxVoltageCount)")
        }
        guard (0..<raw.voltageCount).contains(raw.first) else {
            throw refuse("first", "\(raw.first) is outside 0..<\(raw.voltageCount) (voltageCount)")
        }
        guard voltagesCut || !raw.microvolts.isEmpty, raw.microvolts.count <= raw.voltageCount - raw.first else {
            throw refuse("microvolts", "holds \(raw.microvolts.count) voltages from \(raw.first) of \(raw.voltageCount)")
        }
        guard SeriesLimits.sampleRates.contains(raw.sampleRateHz) else {
            throw refuse("sampleRateHz", "\(raw.sampleRateHz) is outside \(SeriesLimits.sampleRates) Hz")
        }
        guard SampleValidation.offsetProblem(raw.utcOffsetSeconds) == nil else {
            throw refuse("utcOffsetSeconds", "\(raw.utcOffsetSeconds) s is beyond ±18 hours")
        }
        self.init(recording: raw.recording, index: raw.part, count: raw.parts, first: raw.first,
                  header: ElectrocardiogramHeader(
                    recordedMs: recordedMs, utcOffsetSeconds: raw.utcOffsetSeconds,
                    classification: raw.classification, symptoms: raw.symptoms,
                    softwareVersion: raw.softwareVersion, device: raw.device, sampleRateHz: raw.sampleRateHz,
                    lead: raw.lead, unit: raw.unit, voltageCount: raw.voltageCount),
                  microvolts: raw.microvolts)
    }

    private struct Raw: Decodable {
        var recording: UUID
        var part: Int
        var parts: Int
        var first: Int
        var recorded: String
        var utcOffsetSeconds: Int32
        var classification: String?
        var symptoms: String?
        var softwareVersion: String?
        var device: String?
        var sampleRateHz: Double
        var lead: String?
        var unit: String?
        var voltageCount: Int
        var microvolts: [Double]
    }
}
