import Foundation
import Testing
@testable import StepSyncCore

/// Issue 34.2 (issue 33): the Health Auto Export reader holds no `[String: Any]`; sleep points and workouts are read
/// into ``HAEJSON``, and read as they were.
@Suite("HAEJSON: the small parts of a Health Auto Export body, typed")
struct HAEJSONTests {
    /// The folder of the reader's sources, from this file's path.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/StepSyncCore/HealthAutoExport")

    @Test("No file of Sources/StepSyncCore/HealthAutoExport names [String: Any], [Any] or a cast to them")
    func noUntypedJSON() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 10)
        var found: [String] = []
        for file in files.sorted() {
            let text = try String(contentsOf: Self.folder.appendingPathComponent(file), encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains("[String: Any]") || line.contains("[Any]") || line.contains("NSNull") {
                found.append("\(file):\(n + 1)")
            }
        }
        #expect(found.isEmpty, "\(found)")
    }

    @Test("Values decode to their cases; a number reads from a number, a numeric string or a Boolean")
    func values() throws {
        let json = try #require(HAEJSON(parsing: """
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
