import Foundation
import Testing
@testable import StepSyncCore

/// Issues 33 and 34: no `[String: Any]` in Sources/; bodies and details read by key are ``JSONValue``s, read as
/// they were.
@Suite("JSONValue: bodies and fields read by key, typed")
struct JSONValueTests {
    /// The package's Sources/ folder, from this file's path.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    @Test("No Swift file of Sources/ names [String: Any], [Any] or NSNull outside comments")
    func noUntypedJSON() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 200)
        var found: [String] = []
        for file in files.sorted() {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
                && (line.contains("[String: Any]") || line.contains("[Any]") || line.contains("NSNull")) {
                found.append("\(file):\(n + 1)")
            }
        }
        #expect(found.isEmpty, "\(found)")
    }

    @Test("Values parse to their cases; a number reads from a number, a numeric string or a Boolean")
    func values() throws {
        let json = try #require(JSONValue(parsing: """
            {"s":"x","n":2.5,"t":true,"z":null,"a":[1,"2"],"o":{"qty":"3.5"}}
            """))
        #expect(json["s"]?.string == "x")
        #expect(json["n"]?.number == 2.5)
        #expect(json["t"]?.number == 1)
        #expect(json["z"]?.number == nil)
        #expect(json["a"]?.array?.map(\.number) == [1, 2])
        #expect(json["o"]?["qty"]?.number == 3.5)
        #expect(json["o"]?.object?.keys.sorted() == ["qty"])
        #expect(json["missing"] == nil)
        #expect(json["s"]?["qty"] == nil)
    }
}

extension JSONValueTests {
    @Test("A repeated key keeps its last value; too deep, a number too large or trailing bytes is no value",
          arguments: [("{\"a\":1,\"a\":2}", JSONValue.object(["a": .number(2)])),
                      (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), nil),
                      ("1e999", nil), ("{} x", nil), (" \"\\u00e9\" ", .string("é")), ("\"\\ud800\"", nil)])
    func edges(_ text: String, _ expected: JSONValue?) {
        #expect(JSONValue(parsing: text) == expected)
    }

    @Test("Values nested 64 deep read (63 arrays around a number); the innermost value is there")
    func deepest() {
        var value = JSONValue(parsing: String(repeating: "[", count: 63) + "7" + String(repeating: "]", count: 63))
        for _ in 0..<63 { value = value?.array?.first }
        #expect(value == .number(7))
    }
}
