import Foundation
import StepSyncCore

/// Formatting for people: numbers with thousands separators, aligned tables, durations.
enum Format {
    /// `1234567.0` → `1,234,567`; fractions are kept to one decimal when present.
    static func number(_ value: Double) -> String {
        let rounded = value.rounded()
        if abs(value - rounded) < 1e-9 { return number(Int64(rounded)) }
        // One decimal, with the whole part grouped: 2510467.4 → 2,510,467.4.
        let tenths = Int64((abs(value) * 10).rounded())
        let whole: String = number(tenths / 10)
        let sign = value < 0 ? "-" : ""
        return "\(sign)\(whole).\(tenths % 10)"
    }

    /// `1234567` → `1,234,567`.
    static func number<I: BinaryInteger>(_ value: I) -> String { GroupedNumber.string(value) }

    /// Seconds for people: `0.42 s`, `12.3 s`, `4 min 05 s`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 10 { return String(format: "%.2f s", seconds) }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let s = Int(seconds.rounded())
        return String(format: "%d min %02d s", s / 60, s % 60)
    }

    /// Columns padded to their widest cell; numbers right-aligned.
    static func table(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func isNumeric(_ s: String) -> Bool { !s.isEmpty && s.allSatisfy { $0.isNumber || $0 == "," || $0 == "." || $0 == "-" } }
        // A column whose cells are all numbers is right-aligned, its header too, so the header stands over them.
        let numericColumn = header.indices.map { column in
            let cells = rows.map { $0[column] }.filter { !$0.isEmpty }
            return !cells.isEmpty && cells.allSatisfy(isNumeric)
        }
        return all.enumerated().map { index, row in
            row.indices.map { i in
                let cell = row[i]
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                let right = index == 0 ? numericColumn[i] : isNumeric(cell)
                return right ? pad + cell : cell + pad
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
