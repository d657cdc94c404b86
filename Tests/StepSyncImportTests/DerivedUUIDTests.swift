import Foundation
import StepSyncCore
import Testing
@testable import StepSyncImport

private func parse(_ text: String) throws -> [HealthSample] {
    var scanner = XMLChunkScanner()
    var parser = HealthExportParser()
    try Array(text.utf8).withUnsafeBytes { try scanner.feed($0, to: &parser) }
    try scanner.finish()
    try parser.finish(line: scanner.line)
    #expect(parser.skipped.isEmpty)
    return parser.drain()
}

/// Issue 26 changed how a record's uuid is computed (SHA-1 from swift-crypto instead of a hand-written one; the
/// hashed name start cached by the decoder's cache entries instead of by its bytes). The uuids must not change.
@Suite("Derived uuids: unchanged by how they are computed")
struct DerivedUUIDTests {
    @Test("the real exports' records get exactly the uuids main derived before issue 26 (stepsync 5de10b1, release)",
          arguments: [
              ("export-v8-rgosdin.xml", """
              40C1FBF6-2756-59C3-951E-BACA9E62B36C C0EB6A67-CDDE-54A4-BD49-D79135B94749 B4617830-6095-5FF3-A386-A842CB945C5F
              A61F0BAC-F0A8-559F-947D-C6137732BAC1 59B025A5-D7D2-59EB-B4CE-793C7B55C453 A1E4BDFC-8F0C-5855-9DCB-3126C38C0770
              9D16E279-518D-5F99-A753-B483FC3A5C91 5A6B3687-AE58-5BBE-80F6-7754C1864489 C1FE2A54-EBBB-535C-B7A2-AF0CBDC4AAB9
              C8B5CC33-EADC-510D-9057-47BDF5A34A03 F2796E83-307E-5D52-9FFC-1320D3E9936D 1FBE4D99-03FF-5092-837A-8C4174DB7829
              C5FC6854-DCA2-52A3-AF2F-768E4D6C1F98 029536D7-A263-522E-8D3E-90EE9E2C9DE4 025EA68E-FA2A-52C8-9EA7-3B937E2B37AD
              86390B81-F4E6-5F34-8291-98DA8821AC5D 124B7960-54A4-55CD-AF2B-CA4BBF368B0C 9718915C-C61D-5651-9500-4C4C26C57C56
              """),
              ("export-healthkit-to-sqlite.xml", """
              7714AF03-9907-5D53-9138-7E9B46CE6092 456C8315-2A6D-55AF-B73F-56461EFD2438 E87B7994-CA25-590D-A655-AF15C13B2DF9
              """),
          ])
    func realExports(_ file: String, _ expected: String) throws {
        // Pinned from `stepsync import --data-dir D Fixtures/<file>` of main's release binary, then
        // `SELECT hex(uuid) FROM sample`: the hand-written SHA-1 and the byte-keyed name-start cache.
        let samples = try parse(try HealthExportFixture.real(file))
        let pinned = expected.split(whereSeparator: \.isWhitespace).map { UUID(uuidString: String($0))! }
        #expect(samples.count == pinned.count)
        #expect(Set(samples.map(\.uuid)) == Set(pinned))
    }

    @Test("records interleaving more sources, versions, devices and units than the caches hold get the uuid of their whole name")
    func cacheEvictions() throws {
        // 12 sources × 3 versions × 3 devices × 2 units, interleaved so that every cache (8 strings, 8 devices,
        // 16 name starts) evicts and re-adds entries; each uuid is checked against the name built from scratch.
        let types = ["HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierHeartRate"]
        let devices = (0..<3).map { "&lt;&lt;HKDevice: 0x28\($0)a1c0a0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch\($0),2, software:9.\($0)&gt;" }
        var body = ""
        var expected: [UUID] = []
        var rng = SystemRandomNumberGenerator()
        for i in 0..<600 {
            let type = types[i % 2], source = "Source \(Int.random(in: 0..<12, using: &rng))"
            let version = i % 7 == 0 ? nil : "1\(Int.random(in: 0..<3, using: &rng))"
            let device = i % 5 == 0 ? nil : devices[Int.random(in: 0..<3, using: &rng)]
            let unit = i % 2 == 0 ? "count" : (Bool.random(using: &rng) ? "count/min" : "count/s")
            let value = Double(i) / 4
            let startDate = "2019-01-\(10 + i / 100) 08:\(10 + i % 50):00 +0100"
            let endDate = "2019-01-\(10 + i / 100) 08:\(10 + i % 50):30 +0100"
            let creationDate = i % 3 == 0 ? nil : endDate
            var attributes = "type=\"\(type)\" sourceName=\"\(source)\""
            if let version { attributes += " sourceVersion=\"\(version)\"" }
            if let device { attributes += " device=\"\(device)\"" }
            attributes += " unit=\"\(unit)\""
            if let creationDate { attributes += " creationDate=\"\(creationDate)\"" }
            attributes += " startDate=\"\(startDate)\" endDate=\"\(endDate)\" value=\"\(value)\""
            body += " <Record \(attributes)/>\n"

            func ms(_ text: String) -> Int64 { Array(text.utf8).withUnsafeBytes { HealthDate.parse($0)!.ms } }
            var name: [UInt8] = []
            func add(_ text: String?) {
                if let text { name.append(contentsOf: text.utf8) } else { name.append(0xFF) }
                name.append(0)
            }
            add(type); add(source); add(version)
            add(device.map { raw in HealthDevice(description: Array(raw.utf8).withUnsafeBytes { XMLAttributes.decode($0) }).identity })
            add(unit)
            for word in [value.bitPattern, UInt64(bitPattern: ms(startDate)), UInt64(bitPattern: ms(endDate)),
                         UInt64(bitPattern: creationDate.map(ms) ?? Int64.min)] {
                withUnsafeBytes(of: word.littleEndian) { name.append(contentsOf: $0) }
            }
            expected.append(name.withUnsafeBytes { NameBasedUUID.v5(namespace: RecordDecoder.namespace, name: $0) })
        }
        let samples = try parse(HealthExportFixture.document(.v14, body: body))
        #expect(samples.map(\.uuid) == expected)
    }

    @Test("SHA-1 (swift-crypto) equals the hand-written SHA-1 it replaced on names of every length up to three blocks, resumed at every cut")
    func sha1MatchesReplacedImplementation() {
        let namespace = RecordDecoder.namespace
        for length in 0...200 {
            let name = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ length) }
            name.withUnsafeBytes { raw in
                var reference = HandwrittenSHA1()
                withUnsafeBytes(of: namespace.uuid) { reference.update($0) }
                reference.update(raw)
                var sha = SHA1()
                withUnsafeBytes(of: namespace.uuid) { sha.update($0) }
                sha.update(raw)
                let words = sha.finalizeWords(), expected = reference.finalizeWords()
                #expect(words == expected, "length \(length)")
                for cut in stride(from: 0, through: length, by: 7) {
                    let start = NameBasedUUID.state(namespace: namespace, prefix: UnsafeRawBufferPointer(rebasing: raw[..<cut]))
                    #expect(NameBasedUUID.v5(resuming: start, suffix: UnsafeRawBufferPointer(rebasing: raw[cut...]))
                        == NameBasedUUID.v5(namespace: namespace, name: raw), "length \(length) cut \(cut)")
                }
            }
        }
    }
}
