import Foundation
import StepSyncCore

/// What the wire parser promises about the text of strings (issue 21.5, ``WireText``), checked against the standard
/// library's own UTF-8 and UTF-16 validation (`String(validating:as:)`), for the `wire-text` fuzz target and the
/// replay tests.
///
/// The input is read as a string's content, piece by piece: `\` and two bytes is one UTF-16 code unit written as a
/// `\uXXXX` escape (big-endian); any other byte is a raw byte (`"`, `\` and control bytes are written as JSON escapes
/// of themselves; U+0000, which `SampleValidation` refuses for its own reason, becomes U+0001). The reference: the
/// string is valid exactly when every run of raw bytes is UTF-8 and every run of escapes is UTF-16, and then it is
/// their concatenation. The promises, for that string as a `/samples` sample's `sourceName`, as a value and as a key
/// deep inside its `details`, and byte 0 of the input choosing which of them comes first:
/// 1. accepted exactly when the reference is valid (and ``WireText/firstProblem(in:)`` agrees with
///    `String(validating:)` on every raw run);
/// 2. accepted ⇒ `sourceName` is the reference string byte for byte, and `details` is the JSON text as sent;
/// 3. refused ⇒ `invalid_text`, sample 0, the field where the text came first, a message of at most 200 bytes.
enum WireTextOracle {
    /// One piece of the string: a raw byte, or a `\uXXXX` escape.
    enum Piece: Equatable {
        case raw(UInt8)
        case unit(UInt16)
    }

    static func pieces(_ bytes: some Collection<UInt8>) -> [Piece] {
        var out: [Piece] = []
        var it = Array(bytes)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "\\"), it.count >= 2 {
                let unit = UInt16(it.removeFirst()) << 8 | UInt16(it.removeFirst())
                out.append(.unit(unit == 0 ? 1 : unit))
            } else {
                out.append(.raw(b == 0 ? 1 : b))
            }
        }
        return out
    }

    /// The JSON text of the string's content (without quotes).
    static func json(_ pieces: [Piece]) -> [UInt8] {
        var out: [UInt8] = []
        func hex(_ v: UInt16) -> [UInt8] {
            let digits = Array("0123456789abcdef".utf8)
            return [digits[Int(v >> 12)], digits[Int(v >> 8 & 15)], digits[Int(v >> 4 & 15)], digits[Int(v & 15)]]
        }
        for piece in pieces {
            switch piece {
            case .unit(let u): out += Array(#"\u"#.utf8) + hex(u)
            case .raw(let b) where b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), b]
            case .raw(let b) where b < 0x20: out += Array(#"\u"#.utf8) + hex(UInt16(b))
            case .raw(let b): out.append(b)
            }
        }
        return out
    }

    /// The reference: the string, or `nil` when a run is not valid UTF-8 or UTF-16; and whether the raw runs' checks
    /// by ``WireText`` and the standard library agreed.
    static func reference(_ pieces: [Piece]) -> (text: String?, agreed: Bool) {
        var text = ""
        var valid = true
        var agreed = true
        var k = 0
        while k < pieces.count {
            if case .raw = pieces[k] {
                var run: [UInt8] = []
                while k < pieces.count, case .raw(let b) = pieces[k] { run.append(b); k += 1 }
                let standard = String(validating: run, as: UTF8.self)
                let ours = run.withUnsafeBytes { WireText.firstProblem(in: $0) } == nil
                agreed = agreed && ours == (standard != nil)
                if let standard { text += standard } else { valid = false }
            } else {
                var run: [UInt16] = []
                while k < pieces.count, case .unit(let u) = pieces[k] { run.append(u); k += 1 }
                if let standard = String(validating: run, as: UTF16.self) { text += standard } else { valid = false }
            }
        }
        return (valid ? text : nil, agreed)
    }

    /// The promises `bytes` breaks.
    static func problems(_ bytes: UnsafeRawBufferPointer) -> [String] {
        guard let order = bytes.first else { return [] }
        let pieces = pieces(bytes.dropFirst())
        let (expected, agreed) = reference(pieces)
        var problems: [String] = []
        if !agreed { problems.append("WireText and String(validating:) disagree on a raw run") }
        let text = json(pieces)
        let name = Array(#""sourceName":""#.utf8) + text + [UInt8(ascii: "\"")]
        let details = Array(#""details":{"a":[1,{""#.utf8) + text + Array(#"":""#.utf8) + text + Array(#""}]}"#.utf8)
        let nameFirst = order & 1 == 0
        let head = Array(#"{"samples":[{"uuid":"0b1e0000-0000-4000-8000-000000000001","type":"HKQuantityTypeIdentifierHeartRate","startDate":"2025-05-11T16:27:22.000Z","endDate":"2025-05-11T16:27:22.000Z","value":72,"unit":"count/min","sourceBundleId":"b","#.utf8)
        let body = head + (nameFirst ? name + [UInt8(ascii: ",")] + details : details + [UInt8(ascii: ",")] + name) + Array("}]}".utf8)
        do throws(WireError) {
            let samples = try WireDecoder.decodeSamplesRequest(body)
            guard let expected else { return problems + ["accepted text the reference refuses"] }
            if Array(samples[0].sourceName.utf8) != Array(expected.utf8) {
                problems.append("sourceName is \(Array(samples[0].sourceName.utf8)), expected \(Array(expected.utf8))")
            }
            let sentDetails = String(decoding: details.dropFirst(#""details":"#.utf8.count), as: UTF8.self)
            if samples[0].details != sentDetails { problems.append("details changed: \(samples[0].details ?? "nil")") }
        } catch {
            if let expected, expected.utf8.count <= SampleValidation.maxFieldBytes {
                problems.append("refused text the reference accepts: \(error)")
            }
            guard expected == nil else { return problems }
            if error.kind != "invalid_text" { problems.append("refused as \(error.kind), not invalid_text: \(error)") }
            if error.sampleIndex != 0 { problems.append("the error names sample \(String(describing: error.sampleIndex))") }
            let field = nameFirst ? "sourceName" : "details"
            if error.field != field { problems.append("the error names \(String(describing: error.field)), not \(field)") }
            if error.description.utf8.count > 200 { problems.append("the message is \(error.description.utf8.count) bytes") }
        }
        return problems
    }
}
