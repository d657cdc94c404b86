import Foundation

/// The few JSON writing helpers the dashboard's panel answers share (``DailyBand``, ``SleepNights``,
/// ``WorkoutSummary``): compact output, keys in a fixed order, numbers rounded to a thousandth.
enum PanelJSON {
    /// `text` as a JSON string literal (``JSONBytes/quoted(_:)``).
    static func quoted(_ text: String) -> String { JSONBytes.quoted(text) }

    /// A finite number rounded to three decimals, written without a fraction when it is whole (`72`, `72.333`);
    /// `null` for `nil` or a value that is not finite.
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        // Past 10¹⁵ a double has no thousandths to round, and scaling by 1000 could overflow to infinity (1e306).
        guard abs(value) < 1e15 else { return "\(value)" }
        let rounded = (value * 1000).rounded() / 1000
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return "\(rounded)"
    }

    /// The head every panel answer starts with: `"tz":…,"from":…,"to":…` (dates or `null`).
    static func rangeHead(timeZoneName: String, from: CivilDate?, to: CivilDate?) -> String {
        "\"tz\":" + quoted(timeZoneName) + ",\"from\":" + (from.map { "\"\($0)\"" } ?? "null")
            + ",\"to\":" + (to.map { "\"\($0)\"" } ?? "null")
    }
}
