import Foundation

/// Writes the one JSON object (or array) a `--json` command prints to stdout.
enum JSONOutput {
    /// Prints `object` (made of dictionaries, arrays, strings, numbers and booleans) as sorted-key JSON.
    private static func write(_ object: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Prints `value`: encoded, then written by the one writer, ``write(_:)``, so every `--json` document has the same key order (`JSONEncoder`'s `.sortedKeys` orders keys byte by byte,
    /// `JSONSerialization`'s case-insensitively: `serverWaits` before `serverWaitSeconds`) and number format.
    static func print(_ value: some Encodable) throws {
        try write(object(value))
    }

    /// `value` as the object ``write(_:)`` writes (dictionaries, arrays, strings, numbers, booleans, `NSNull`).
    static func object(_ value: some Encodable) throws -> Any {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
    }
}
