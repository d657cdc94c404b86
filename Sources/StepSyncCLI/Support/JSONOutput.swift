import Foundation

/// Writes the one JSON object (or array) a `--json` command prints to stdout.
enum JSONOutput {
    /// Prints `object` (made of dictionaries, arrays, strings, numbers and booleans) as sorted-key JSON.
    static func print(_ object: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }
}
