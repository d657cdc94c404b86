import Foundation
import Testing
@testable import StepSyncImport
import StepSyncTestSupport

/// The inflating thread hands the scanner what `ExportInput.stream` would have: the same bytes in the same order,
/// then the input's error; a consumer error stops it.
@Suite("Inflating ahead")
struct InflateAheadTests {
    /// An XML document of about `bytes` bytes, varied so that order matters.
    static func document(bytes: Int) -> String {
        var text = "<HealthData>\n"
        var i = 0
        while text.utf8.count < bytes {
            text += " <Record n=\"\(i)\" v=\"\(i &* 2_654_435_761 % 1_000_003)\"/>\n"
            i += 1
        }
        return text + "</HealthData>\n"
    }

    static func directory() throws -> URL {
        let url = URL(fileURLWithPath: TemporaryDirectory.uniquePath("stepsync-ahead"))
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a zip entry (several MB, many chunks) and a bare XML file come through byte for byte, in order",
          arguments: [true, false])
    func sameBytes(zip: Bool) throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let xml = Self.document(bytes: 3 << 20)
        let path = zip
            ? try HealthExportFixture.zip([("apple_health_export/export.xml", HealthExportFixture.document(.v11, body: xml))],
                                          named: "export.zip", in: dir)
            : try HealthExportFixture.write(HealthExportFixture.document(.v11, body: xml), named: "export.xml", in: dir)
        let input = try ExportInput.open(path)
        var direct: [UInt8] = []
        try input.stream(path) { direct.append(contentsOf: $0) }
        let ahead = InflateAhead(capacity: 2)
        ahead.start(input: input, path: path)
        var chunks = 0
        var through: [UInt8] = []
        try ahead.forEachChunk {
            through.append(contentsOf: $0)
            chunks += 1
        }
        #expect(through == direct)
        #expect(through.count == HealthExportFixture.document(.v11, body: xml).utf8.count)
        if zip { #expect(chunks > 4) }  // more chunks than buffers: they went round
    }

    @Test("a consumer error stops the reading thread and comes out as it was; nothing more is read")
    func consumerErrorStops() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try HealthExportFixture.zip([("apple_health_export/export.xml", Self.document(bytes: 4 << 20))],
                                               named: "export.zip", in: dir)
        let input = try ExportInput.open(path)
        struct Stop: Error {}
        let ahead = InflateAhead(capacity: 2)
        ahead.start(input: input, path: path)
        var seen = 0
        #expect(throws: Stop.self) {
            try ahead.forEachChunk { _ in
                seen += 1
                if seen == 2 { throw Stop() }
            }
        }
        #expect(seen == 2)
        // The input can be read again from this thread: the reading thread has ended.
        var total = 0
        try input.stream(path) { total += $0.count }
        #expect(total > 4 << 20)
    }

    @Test("a damaged zip's error comes after the chunks before it, as ImportError")
    func inputErrorAfterChunks() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try HealthExportFixture.zip([("apple_health_export/export.xml", Self.document(bytes: 2 << 20))],
                                               named: "export.zip", in: dir)
        // Flip bytes in the middle of the deflated data: inflation or the CRC fails.
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let middle = data.count / 2
        for i in middle..<(middle + 64) { data[i] ^= 0xA5 }
        try data.write(to: URL(fileURLWithPath: path))
        let input = try ExportInput.open(path)
        var direct: Error?
        do { try input.stream(path) { _ in } } catch { direct = error }
        let ahead = InflateAhead()
        ahead.start(input: input, path: path)
        var bytes = 0
        let error = #expect(throws: ImportError.self) { try ahead.forEachChunk { bytes += $0.count } }
        #expect(bytes > 0)
        #expect(error.map { "\($0)" } == direct.map { "\($0)" })
    }
}
