/// The rule for the text of every wire string (values, keys, and every string anywhere inside `details` or an
/// unknown field): well-formed UTF-8 (Unicode 15, table 3-7) and, in escapes, UTF-16 surrogates only as a high one
/// followed by a low one. Anything else is refused (400 `invalid_text`), never repaired to U+FFFD: the sink stores
/// exactly what it was sent or nothing.
///
/// | first byte | then | refused as |
/// |---|---|---|
/// | 00–7F | — | (ASCII; control bytes are JSON syntax errors) |
/// | 80–BF | — | a stray continuation byte |
/// | C0, C1 | — | an overlong encoding |
/// | C2–DF | 80–BF | |
/// | E0 | A0–BF, 80–BF | 80–9F: overlong |
/// | E1–EC, EE, EF | 80–BF ×2 | |
/// | ED | 80–9F, 80–BF | A0–BF: an encoded surrogate (U+D800…DFFF) |
/// | F0 | 90–BF, 80–BF ×2 | 80–8F: overlong |
/// | F1–F3 | 80–BF ×3 | |
/// | F4 | 80–8F, 80–BF ×2 | 90–BF: above U+10FFFF |
/// | F5–F7 | — | above U+10FFFF |
/// | F8–FF | — | never in UTF-8 |
///
/// A sequence cut short (by the string's end, the closing quote or any byte that is not 80–BF) is truncated.
/// ``WireParser`` checks each non-ASCII byte as it scans a string (ASCII costs one comparison more than before), so
/// the check adds no pass over the body.
public enum WireText {
    /// Why a string's bytes are not UTF-8.
    public enum Problem: Equatable, Sendable, CustomStringConvertible {
        case strayContinuation
        case overlong
        case encodedSurrogate
        case aboveMaximum
        case truncated
        case notUTF8Byte

        public var description: String {
            switch self {
            case .strayContinuation: "a stray continuation byte"
            case .overlong: "an overlong encoding"
            case .encodedSurrogate: "a UTF-16 surrogate encoded in UTF-8"
            case .aboveMaximum: "a code point above U+10FFFF"
            case .truncated: "a truncated sequence"
            case .notUTF8Byte: "a byte that never occurs in UTF-8"
            }
        }
    }

    /// The length (2…4) of the well-formed sequence at `bytes[k]` (a byte ≥ 0x80), or its problem.
    @inline(never)
    static func sequence(_ bytes: UnsafeRawBufferPointer, at k: Int) -> (length: Int, problem: Problem?) {
        let lead = bytes[k]
        // The sequence's length and the range its second byte must be in (narrower than 80–BF after E0, ED, F0, F4).
        let length: Int, low: UInt8, high: UInt8, below: Problem, above: Problem
        switch lead {
        case 0x80...0xBF: return (0, .strayContinuation)
        case 0xC0, 0xC1: return (0, .overlong)
        case 0xC2...0xDF: (length, low, high, below, above) = (2, 0x80, 0xBF, .truncated, .truncated)
        case 0xE0: (length, low, high, below, above) = (3, 0xA0, 0xBF, .overlong, .truncated)
        case 0xED: (length, low, high, below, above) = (3, 0x80, 0x9F, .truncated, .encodedSurrogate)
        case 0xE1...0xEF: (length, low, high, below, above) = (3, 0x80, 0xBF, .truncated, .truncated)
        case 0xF0: (length, low, high, below, above) = (4, 0x90, 0xBF, .overlong, .truncated)
        case 0xF1...0xF3: (length, low, high, below, above) = (4, 0x80, 0xBF, .truncated, .truncated)
        case 0xF4: (length, low, high, below, above) = (4, 0x80, 0x8F, .truncated, .aboveMaximum)
        case 0xF5...0xF7: return (0, .aboveMaximum)
        default: return (0, .notUTF8Byte)
        }
        guard k + 1 < bytes.count, bytes[k + 1] & 0xC0 == 0x80 else { return (0, .truncated) }
        if bytes[k + 1] < low { return (0, below) }
        if bytes[k + 1] > high { return (0, above) }
        for j in (k + 2)..<(k + length) {
            guard j < bytes.count, bytes[j] & 0xC0 == 0x80 else { return (0, .truncated) }
        }
        return (length, nil)
    }

    /// The first problem in `bytes` as UTF-8 and its offset, or `nil` when they are well-formed UTF-8 (what
    /// `String(validating:as: UTF8.self)` accepts). For tests and oracles; the parser checks as it scans.
    public static func firstProblem(in bytes: UnsafeRawBufferPointer) -> (offset: Int, problem: Problem)? {
        var k = 0
        while k < bytes.count {
            if bytes[k] < 0x80 { k += 1; continue }
            let (length, problem) = sequence(bytes, at: k)
            if let problem { return (k, problem) }
            k += length
        }
        return nil
    }

    /// What the error says about a refused sequence at `k`: its problem, its bytes (at most 4, in hex) and offset.
    static func detail(_ bytes: UnsafeRawBufferPointer, at k: Int, _ problem: Problem) -> String {
        var shown = [UInt8(bytes[k])]
        var j = k + 1
        while j < bytes.count, j < k + 4, bytes[j] & 0xC0 == 0x80 { shown.append(bytes[j]); j += 1 }
        let hex = shown.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
        return "is not valid UTF-8: \(problem) (\(hex)) at byte \(k)"
    }
}
