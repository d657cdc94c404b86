/// Whole numbers for people, with thousands separators: `1234567` → `1,234,567`. The one grouping of the CLI's
/// tables and reports and the chunk chart's labels.
public enum GroupedNumber {
    /// `value` with a `,` between each group of three digits (and a leading `-` when negative).
    public static func string(_ value: some BinaryInteger) -> String {
        let digits = String(value.magnitude)
        var out = ""
        out.reserveCapacity(digits.count + digits.count / 3 + 1)
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return value < 0 ? "-" + out : out
    }
}
