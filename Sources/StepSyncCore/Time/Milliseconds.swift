/// Millisecond constants for the UTC grid. Durations in stepsync are plain `Int64` milliseconds.
public enum Milliseconds {
    /// One second.
    public static let second: Int64 = 1_000
    /// One minute.
    public static let minute: Int64 = 60_000
    /// One hour.
    public static let hour: Int64 = 3_600_000
    /// One day (24 hours: the UTC grid has no daylight-saving days).
    public static let day: Int64 = 86_400_000
}
