/// What an Apple Watch ECG recording says about itself (the header of its export CSV), as stored with every one of
/// its parts. The person's name and birth date are not kept.
public struct ElectrocardiogramHeader: Hashable, Sendable {
    /// The recording's start, UTC ms.
    public var recordedMs: Int64
    /// The UTC offset the recording was made in, seconds.
    public var utcOffsetSeconds: Int32
    /// The classification as written, in the device's language ("Sinus Rhythm", "Sinusrhythmus").
    public var classification: String?
    /// The symptoms as written.
    public var symptoms: String?
    /// The ECG app's version.
    public var softwareVersion: String?
    /// The device model ("Watch6,2").
    public var device: String?
    /// Voltages per second.
    public var sampleRateHz: Double
    /// The lead ("Lead I").
    public var lead: String?
    /// The voltages' unit as written ("µV").
    public var unit: String?
    /// How many voltages the whole recording has.
    public var voltageCount: Int

    /// Creates a header.
    public init(recordedMs: Int64, utcOffsetSeconds: Int32, classification: String? = nil, symptoms: String? = nil,
                softwareVersion: String? = nil, device: String? = nil, sampleRateHz: Double, lead: String? = nil,
                unit: String? = nil, voltageCount: Int) {
        self.recordedMs = recordedMs
        self.utcOffsetSeconds = utcOffsetSeconds
        self.classification = classification
        self.symptoms = symptoms
        self.softwareVersion = softwareVersion
        self.device = device
        self.sampleRateHz = sampleRateHz
        self.lead = lead
        self.unit = unit
        self.voltageCount = voltageCount
    }

    /// The instant of voltage `index` (UTC ms, rounded to the millisecond), kept within ``Instants`` whatever the
    /// header says (a rate of 10⁻²² Hz or a huge index must not trap: the offset is computed in `Double` and clamped
    /// before it becomes an integer).
    public func instant(ofVoltage index: Int) -> Int64 {
        let offset = (Double(index) / sampleRateHz * 1000).rounded()
        let base = min(max(recordedMs, Instants.min), Instants.max)
        guard offset.isFinite else { return offset < 0 ? Instants.min : Instants.max }
        let instant = Double(base) + offset
        guard instant < Double(Instants.max) else { return Instants.max }
        guard instant > Double(Instants.min) else { return Instants.min }
        return base + Int64(offset)
    }
}
