import StepSyncCore
import Testing

/// The client's transport warnings: a token in clear to a host that is not loopback, a certificate out of its dates.
@Suite("a token in clear, a certificate out of date")
struct TransportSafetyTests {
    @Test("loopback hosts: localhost, 127.0.0.0/8, ::1 in its spellings; anything else is not", arguments: [
        ("localhost", true), ("LOCALHOST.", true), ("127.0.0.1", true), ("127.255.3.9", true), ("::1", true),
        ("[::1]", true), ("0:0:0:0:0:0:0:1", true), ("0::1", true), ("::ffff:127.0.0.1", false),
        ("128.0.0.1", false), ("10.0.0.1", false), ("127.0.0.1.example.com", false), ("localhost.example", false),
        ("::2", false), ("example.invalid", false), ("127.1", false), ("1::1", false), ("", false),
    ])
    func loopback(host: String, expected: Bool) {
        #expect(CleartextToken.isLoopback(host: host) == expected)
    }

    @Test("the warning: only a token, over http://, to a host that is not loopback")
    func warning() throws {
        let warning = try #require(CleartextToken.warning(server: "http://example.invalid:8000", token: "secret"))
        #expect(warning.hasPrefix("warning: sending the bearer token to http://example.invalid:8000 in clear"))
        #expect(warning.contains("https://"))
        #expect(CleartextToken.warning(server: "HTTP://sink.lan", token: "t") != nil)
        #expect(CleartextToken.warning(server: "http://example.invalid:8000", token: nil) == nil)
        #expect(CleartextToken.warning(server: "http://example.invalid:8000", token: "") == nil)
        #expect(CleartextToken.warning(server: "https://example.invalid:8000", token: "secret") == nil)
        #expect(CleartextToken.warning(server: "http://127.0.0.1:8000", token: "secret") == nil)
        #expect(CleartextToken.warning(server: "http://[::1]:8000/prefix", token: "secret") == nil)
        #expect(CleartextToken.warning(server: "http://localhost", token: "secret") == nil)
    }

    @Test("validity: inside the period (ends included), expired after it, not yet valid before it, with the date")
    func validity() {
        let notBefore: Int64 = 1_577_836_800  // 2020-01-01 00:00:00 UTC
        let notAfter: Int64 = 1_609_459_200  // 2021-01-01 00:00:00 UTC
        #expect(CertificateValidity.of(notBefore: notBefore, notAfter: notAfter, now: notBefore) == .valid)
        #expect(CertificateValidity.of(notBefore: notBefore, notAfter: notAfter, now: notAfter) == .valid)
        let expired = CertificateValidity.of(notBefore: notBefore, notAfter: notAfter, now: notAfter + 1)
        #expect(expired == .expired(notAfter: notAfter))
        #expect(expired.phrase == "expired on 2021-01-01 00:00:00 UTC")
        let early = CertificateValidity.of(notBefore: notBefore, notAfter: notAfter, now: notBefore - 1)
        #expect(early.phrase == "is not valid before 2020-01-01 00:00:00 UTC")
        #expect(CertificateValidity.of(notBefore: 0, notAfter: 1, now: 0).phrase == nil)
    }

    @Test("dates: leap days, before 1970, the far ends; a date no calendar year holds is given in seconds", arguments: [
        (0, "1970-01-01 00:00:00 UTC"), (951_782_400 + 86_399, "2000-02-29 23:59:59 UTC"),
        (-1, "1969-12-31 23:59:59 UTC"), (4_102_444_800, "2100-01-01 00:00:00 UTC"),
        (253_402_300_799, "9999-12-31 23:59:59 UTC"), (-62_135_596_800, "0001-01-01 00:00:00 UTC"),
        (Int64.max, "9223372036854775807 s after 1970-01-01 UTC"), (Int64.min, "-9223372036854775808 s after 1970-01-01 UTC"),
    ] as [(Int64, String)])
    func dates(seconds: Int64, text: String) {
        #expect(CertificateValidity.date(seconds) == text)
    }
}
