/// The instants stepsync can represent, store and send: those whose ISO-8601 UTC form has a four-digit year,
/// `0001-01-01T00:00:00.000Z` through `9999-12-31T23:59:59.999Z`.
///
/// Every door checks it — the wire parser, the sink's query parameters, the importer, the generator, the store's
/// inserter and the CLI's `--from`/`--to` — so that whatever is acknowledged or stored is written back and read again
/// as the same instant to the millisecond. (Outside it, `ISO8601Millis.format` would have to clamp the year, and a
/// sample from year 9999 + 1 hour would come back as another instant.) HealthKit itself keeps dates in
/// `0001…9999`, so no real sample is outside.
public enum Instants {
    /// `0001-01-01T00:00:00.000Z` in UTC milliseconds since 1970.
    public static let min: Int64 = ISO8601Millis.days(fromCivil: 1, 1, 1) * Milliseconds.day
    /// `9999-12-31T23:59:59.999Z` in UTC milliseconds since 1970.
    public static let max: Int64 = (ISO8601Millis.days(fromCivil: 9999, 12, 31) + 1) * Milliseconds.day - 1

    /// Whether `ms` is a representable instant.
    @inline(__always)
    public static func contains(_ ms: Int64) -> Bool { ms >= min && ms <= max }

    /// The range as people read it, for error messages.
    public static let description = "0001-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z"
}
