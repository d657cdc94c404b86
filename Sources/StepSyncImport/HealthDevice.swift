import Foundation
import StepSyncCore

/// The device of a record, read out of the `HKDevice` description an export writes in its `device` attribute:
/// `<<HKDevice: 0x283a1c0a0>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:9.5>`.
struct HealthDevice: Hashable, Sendable {
    /// `name:` (`Apple Watch`, `iPhone`).
    var name: String?
    /// `hardware:` (`Watch6,2`, `iPhone14,5`), or `model:` (`Watch`) when there is no hardware field.
    var model: String?
    /// The description without its object address (`0x283a1c0a0` differs from export to export): the part of a
    /// record's identity the device contributes.
    var identity: String

    /// Reads `description`. Anything that is not an `HKDevice` description is kept whole as the identity, and as the
    /// name when it names no `name:` field (`device="Dummy device"` from a third-party app is the device's name as
    /// written, cut to ``SampleValidation/maxFieldBytes`` at a character boundary).
    init(description: String) {
        var fields: [(key: String, value: String)] = []
        // Fields are separated by ", " and start with `key:`; a value may hold ", " itself (rarely) or ","
        // (`hardware:Watch6,2`), so a piece that does not start with a key continues the previous value.
        var body = Substring(description)
        if body.hasPrefix("<<HKDevice"), let close = body.firstIndex(of: ">") {
            body = body[body.index(after: close)...]
        }
        if body.hasSuffix(">") { body = body.dropLast() }
        for piece in body.split(separator: ", ", omittingEmptySubsequences: true) {
            if let colon = piece.firstIndex(of: ":"),
               piece[..<colon].allSatisfy({ $0.isLetter || $0 == " " }), !piece[..<colon].isEmpty {
                fields.append((String(piece[..<colon]), String(piece[piece.index(after: colon)...])))
            } else if !fields.isEmpty {
                fields[fields.count - 1].value += ", " + piece
            }
        }
        func field(_ key: String) -> String? {
            fields.first { $0.key == key }.map(\.value).flatMap { $0.isEmpty ? nil : $0 }
        }
        let isHKDevice = description.hasPrefix("<<HKDevice")
        name = field("name") ?? (isHKDevice ? nil : Self.asWritten(description))
        model = field("hardware") ?? field("model")
        identity = fields.isEmpty ? description : fields.map { "\($0.key):\($0.value)" }.joined(separator: "|")
    }

    /// A free-form device string as its name: trimmed, `nil` when empty, at most ``SampleValidation/maxFieldBytes``
    /// bytes of UTF-8 (cut before the character that would pass it), without U+0000.
    private static func asWritten(_ description: String) -> String? {
        let trimmed = description.filter { $0 != "\u{0}" }.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        guard trimmed.utf8.count > SampleValidation.maxFieldBytes else { return trimmed }
        var kept = ""
        var bytes = 0
        for character in trimmed {
            bytes += character.utf8.count
            if bytes > SampleValidation.maxFieldBytes { break }
            kept.append(character)
        }
        return kept
    }
}
