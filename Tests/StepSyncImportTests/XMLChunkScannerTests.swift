import Foundation
import StepSyncCore
import Testing
@testable import StepSyncImport

/// Parses `text` fed in chunks of `chunkSize` bytes and returns the samples and the parser.
private func parse(_ text: String, chunkSize: Int) throws -> ([HealthSample], HealthExportParser) {
    let bytes = Array(text.utf8)
    var scanner = XMLChunkScanner()
    var parser = HealthExportParser()
    var samples: [HealthSample] = []
    var offset = 0
    while offset < bytes.count {
        let end = min(bytes.count, offset + chunkSize)
        try bytes[offset..<end].withUnsafeBytes { try scanner.feed($0, to: &parser) }
        samples += parser.drain()
        offset = end
    }
    try scanner.finish()
    try parser.finish(line: scanner.line)
    return (samples, parser)
}

@Suite("Streaming XML scanner")
struct XMLChunkScannerTests {
    @Test("records split across chunk boundaries decode the same at every chunk size",
          arguments: [1, 2, 3, 7, 13, 64, 333, 4096, 1 << 20])
    func chunkBoundaries(_ chunkSize: Int) throws {
        let text = F.document(.iOS16Broken, body: "<!-- a comment with a > and a ' in it -->\n" + mainBody)
        let (whole, _) = try parse(text, chunkSize: 1 << 24)
        let (chunked, parser) = try parse(text, chunkSize: chunkSize)
        #expect(whole.count == 11)
        #expect(chunked == whole)
        #expect(parser.nestedRecords == 2)
        #expect(parser.otherElements == ["Correlation": 1, "ActivitySummary": 2, "ExportDate": 1, "Me": 1])
        #expect(parser.skipped.isEmpty)
        #expect(Set(chunked.map(\.uuid)).count == 11)
        #expect(chunked.filter { $0.type == .workout }.count == 1)
    }

    @Test("newlines inside attribute values count toward the lines of later tags at every chunk size",
          arguments: [1, 2, 3, 7, 13, 64, 4096])
    func newlinesInValues(_ chunkSize: Int) throws {
        // Line 3 opens a record whose sourceName spans lines 3-5 (three newlines in one value, one in another);
        // the record on line 8 has a bad date: its line must be 8 whatever the chunks.
        let body = """
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Anna's
        iPhone
        (old)" sourceVersion="1
        2" unit="count" startDate="2019-01-01 08:00:00 +0100" endDate="2019-01-01 08:05:00 +0100" value="10"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="x" unit="count" startDate="2019-01-01 09:00:00 +0100" endDate="2019-01-01 09:05:00 +0100" value="20"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="x" unit="count" startDate="2019-13-01 08:00:00 +0100" endDate="2019-01-01 08:05:00 +0100" value="30"/>

        """
        let text = "<?xml version=\"1.0\"?>\n<HealthData locale=\"en_GB\">\n" + body + "</HealthData>\n"
        let (samples, parser) = try parse(text, chunkSize: chunkSize)
        #expect(samples.map(\.value) == [10, 20])
        #expect(samples.first?.sourceName == "Anna's iPhone (old)")
        #expect(samples.first?.sourceVersion == "1 2")
        #expect(parser.skipped == [.unreadableDate: 1])
        #expect(parser.firstSkipped.map(\.line) == [8])
    }

    @Test("entities and stray control characters in attribute values")
    func entities() throws {
        let raw = Array("&lt;&lt;a&gt; &amp; &quot;b&quot; &apos;c&apos; &#233;&#x4E2D;\u{0B}\td &unknown;".utf8)
        let text = raw.withUnsafeBytes { XMLAttributes.decode($0) }
        #expect(text == "<<a> & \"b\" 'c' é中 d &unknown;")
    }

    @Test("HKDevice descriptions give name, model and an address-free identity")
    func device() {
        let d = HealthDevice(description: "<<HKDevice: 0x283a1c3c0>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:9.5>")
        #expect(d.name == "Apple Watch")
        #expect(d.model == "Watch6,2")
        #expect(d.identity == "name:Apple Watch|manufacturer:Apple Inc.|model:Watch|hardware:Watch6,2|software:9.5")
        let other = HealthDevice(description: "<<HKDevice: 0x600001234>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:9.5>")
        #expect(other.identity == d.identity)
    }

    @Test("export dates: offsets, DST, invalid fields", arguments: [
        ("2019-01-01 08:00:00 +0100", Int64(1_546_326_000_000), Int32(3600)),
        ("2019-07-01 09:00:00 +0200", 1_561_964_400_000, 7200),
        ("2019-07-01 02:00:00 -0500", 1_561_964_400_000, -18000),
        ("2020-02-29 23:59:59 +0000", 1_583_020_799_000, 0),
    ])
    func dates(_ text: String, _ ms: Int64, _ offset: Int32) throws {
        let parsed = try #require(Array(text.utf8).withUnsafeBytes { HealthDate.parse($0) })
        #expect(parsed.ms == ms && parsed.offsetSeconds == offset)
    }

    @Test("dates that are not dates", arguments: ["2019-13-01 08:00:00 +0100", "2019-02-29 08:00:00 +0100",
                                                   "2019-01-01 24:00:00 +0100", "yesterday", ""])
    func badDates(_ text: String) {
        #expect(Array(text.utf8).withUnsafeBytes { HealthDate.parse($0) } == nil)
    }

    @Test("values: exact decimals, exponents, overflow", arguments: [
        ("72", 72.0), ("0.083", 0.083), ("-5.5", -5.5), ("12.25", 12.25), ("1e3", 1000), ("0.1", 0.1),
        (".5", 0.5), ("1e999", .infinity),
    ])
    func numbers(_ text: String, _ value: Double) {
        #expect(Array(text.utf8).withUnsafeBytes { RecordDecoder.number($0) } == value)
    }

    @Test("values that are not decimal numbers", arguments: ["12,5", "nan", "inf", "0x1p3", "", "-", "seven", "HKCategoryValueNotApplicable"])
    func notNumbers(_ text: String) {
        #expect(Array(text.utf8).withUnsafeBytes { RecordDecoder.number($0) } == nil)
    }
}

@Suite("Name-based uuids")
struct NameBasedUUIDTests {
    @Test("SHA-1 test vectors (FIPS 180-4)", arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (String(repeating: "a", count: 1000), "291e9a6c66994949b57ba5e650361e98fc36b1ba"),
    ])
    func sha1(_ message: String, _ hex: String) {
        var sha = SHA1()
        sha.update(Array(message.utf8))
        #expect(sha.finalize().map { String(format: "%02x", $0) }.joined() == hex)
    }

    @Test("SHA-1 at every length around the block boundaries, fed whole and in pieces, matches Python's hashlib",
          arguments: [
              (0, "da39a3ee5e6b4b0d3255bfef95601890afd80709"), (55, "ddf57317ef34bfee3b6df83d359098930eb278bc"),
              (56, "a0d492bb0fc889d0eca3bc137066ab6f4f74f369"), (57, "11a02dcf95859677a62e75024067c22b165d890f"),
              (63, "c55856749bef509bdfe6bfebfc7bf4e793e82132"), (64, "bede92be29c3874e1b54ddc77988d606fc857a8e"),
              (65, "b05a80522b053d6dc7e0a517d0e70212c7dad11f"), (119, "504e27376a6e0f0dba8295b85cb25dc4dfa17d23"),
              (120, "82134b02fb3f702491be9bed581eeab59334acb2"), (128, "a09133e6730ffe899efb70204cb5646cd5dc24ee"),
              (200, "892b673ca3c696ab13ab8aab3cf3abfbc3aaeb3b"),
          ])
    func sha1Blocks(_ length: Int, _ hex: String) {
        // The message: bytes (7i + 3) mod 256, as `hashlib.sha1(bytes((i*7+3)%256 for i in range(n)))`.
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
        func digest(_ pieces: [ArraySlice<UInt8>]) -> String {
            var sha = SHA1()
            for piece in pieces { sha.update(Array(piece)) }
            return sha.finalize().map { String(format: "%02x", $0) }.joined()
        }
        #expect(digest([message[...]]) == hex)
        // Two pieces split at every point, and three pieces around each block edge.
        for cut in 0...length {
            #expect(digest([message[..<cut], message[cut...]]) == hex, "split at \(cut)")
        }
        for cut in stride(from: 0, through: length, by: 64) where cut + 1 <= length {
            #expect(digest([message[..<cut], message[cut..<(cut + 1)], message[(cut + 1)...]]) == hex, "pieces at \(cut)")
        }
    }

    @Test("RFC 4122 version 5: the DNS namespace example matches Python's uuid5")
    func v5() {
        let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!
        #expect(NameBasedUUID.v5(namespace: dns, name: "www.example.com")
            == UUID(uuidString: "2ed6657d-e927-568b-95e1-2665a8aea6a2")!)
    }

    @Test("a uuid resumed from the hashed start of its name equals Python's uuid5 of the whole name, cut at every point")
    func v5Resumed() {
        // hashlib.sha1(dns.bytes + bytes((i*7+3)%256 for i in range(200))) with version 5 and the RFC 4122 variant.
        let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!
        let expected = UUID(uuidString: "35d281f3-857b-57eb-bb0c-6f2ff793cd0a")!
        let name = (0..<200).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
        name.withUnsafeBytes { raw in
            #expect(NameBasedUUID.v5(namespace: dns, name: raw) == expected)
            for cut in 0...name.count {
                let start = NameBasedUUID.state(namespace: dns, prefix: UnsafeRawBufferPointer(rebasing: raw[..<cut]))
                #expect(NameBasedUUID.v5(resuming: start, suffix: UnsafeRawBufferPointer(rebasing: raw[cut...])) == expected,
                        "cut at \(cut)")
            }
        }
    }
}
