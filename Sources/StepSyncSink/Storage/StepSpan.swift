/// A stored step-count sample as the daily-totals rule needs it: when, how many, and which device.
public struct StepSpan: Hashable, Sendable {
    /// Start, UTC ms.
    public var startMs: Int64
    /// End, UTC ms (≥ start; equal for a zero-length sample).
    public var endMs: Int64
    /// The step count.
    public var value: Double
    /// `sourceDeviceName` (`iPhone`, `Apple Watch`), which ranks the source; `nil` when unknown.
    public var deviceName: String?

    /// Creates a span.
    public init(startMs: Int64, endMs: Int64, value: Double, deviceName: String?) {
        self.startMs = startMs
        self.endMs = endMs
        self.value = value
        self.deviceName = deviceName
    }
}
