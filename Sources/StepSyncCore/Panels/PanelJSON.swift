import Foundation

/// The few JSON writing helpers the dashboard's panel answers share (``DailyBand``, ``SleepNights``,
/// ``WorkoutSummary``): compact output, keys in a fixed order, numbers rounded to a thousandth.
enum PanelJSON {
    /// Appends `text` as a JSON string literal.
    static func appendQuoted(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        var out = ""
        appendQuoted(text, to: &out)
        return out
    }

    /// A finite number rounded to three decimals, written without a fraction when it is whole (`72`, `72.333`);
    /// `null` for `nil` or a value that is not finite.
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
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
