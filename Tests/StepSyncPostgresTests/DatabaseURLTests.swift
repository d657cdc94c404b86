import Foundation
import NIOCore
@testable import StepSyncPostgres
import StepSyncCore
import Testing

@Suite("--database URLs, tokens and COPY rows (no server)")
struct DatabaseURLTests {
    @Test("a full URL is parsed into its parts; the password is kept out of the redacted form")
    func parsesFullURL() throws {
        let url = try DatabaseURL("postgresql://anna:s%40cret@db.example:6543/health?sslmode=require")
        #expect(url.user == "anna" && url.password == "s@cret" && url.host == "db.example" && url.port == 6543)
        #expect(url.database == "health" && url.sslMode == "require")
        #expect(url.redacted == "postgresql://anna:***@db.example:6543/health")
        #expect(!"\(url)".contains("cret"))
    }

    @Test("defaults: port 5432, database named after the user, sslmode prefer; postgres:// accepted")
    func defaults() throws {
        let url = try DatabaseURL("postgres://stepsync@127.0.0.1")
        #expect(url.port == 5432 && url.database == "stepsync" && url.sslMode == "prefer" && url.password == nil)
    }

    @Test("a socket directory in ?host= is accepted without a host")
    func socketDirectory() throws {
        let url = try DatabaseURL("postgresql://stepsync@/health?host=/var/run/postgresql")
        #expect(url.socketDirectory == "/var/run/postgresql" && url.host == nil && url.database == "health")
    }

    @Test("bad URLs are refused naming the problem, never echoing the password", arguments: [
        ("http://anna:hunter2@db/health", "must start with postgresql://"),
        ("postgresql://db.example/health", "names no user"),
        ("postgresql://anna:hunter2@/health", "names no host"),
        ("postgresql://anna:hunter2@db/health?sslmode=sometimes", "sslmode=sometimes"),
    ])
    func refused(_ text: String, _ fragment: String) {
        let error = #expect(throws: PostgresStorageError.self) { try DatabaseURL(text) }
        #expect(error?.message.contains(fragment) == true)
        #expect(error?.message.contains("hunter2") == false)
    }

    @Test("a token is ss_ and 43 base64url characters of 256 random bits, never starting with '-'; its hash is SHA-256; it never prints itself")
    func tokens() {
        var rng = SplitMix64(seed: 7)
        let a = ClientToken.random(using: &rng)
        let b = ClientToken.random(using: &rng)
        #expect(a.text.count == 46 && a != b && a.text.hasPrefix("ss_"))
        #expect(a.text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        // Without the prefix about one token in 64 began with '-' (CI drew one): 2,000 draws cover the alphabet's
        // first character many times over, and the base64url body still starts with '-' in some of them.
        let many = (0..<2_000).map { _ in ClientToken.random(using: &rng).text }
        #expect(many.allSatisfy { $0.hasPrefix("ss_") && $0.count == 46 })
        #expect(many.contains { $0.dropFirst(3).hasPrefix("-") })
        #expect(Set(many).count == 2_000)
        #expect(ClientToken(text: "abc").hash.map { String(format: "%02x", $0) }.joined()
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect("\(a)" == "ClientToken(redacted)")
    }

    @Test("a COPY row escapes backslash, tab, newline and carriage return, and writes NULL as \\N")
    func copyRow() {
        let sample = HealthSample(uuid: UUID(uuidString: "D67311EE-FACB-41AA-B202-8D266F3EDE18")!, type: .stepCount,
                                  startMs: 0, endMs: 1, value: 12.5, unit: "count", sourceName: "a\tb\\c\nd\re",
                                  sourceBundleId: "com.apple.health")
        var buffer = ByteBuffer()
        CopyText.appendRow(sample, to: &buffer)
        #expect(String(buffer: buffer) == "D67311EE-FACB-41AA-B202-8D266F3EDE18\tHKQuantityTypeIdentifierStepCount\t"
                + "1970-01-01 00:00:00+00\t1970-01-01 00:00:00.001+00\t\\N\t12.5\tcount\ta\\tb\\\\c\\nd\\re\t"
                + "com.apple.health\t\\N\t\\N\t\\N\t\\N\n")
    }
}
