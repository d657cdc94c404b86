import Foundation
import StepSyncCore
import StepSyncTestSupport
import Testing

/// Issue 32.9: a `--server` that can never work says what to fix at once, instead of waiting 60 s or printing a
/// BoringSSL error with a build path.
@Suite("A misaddressed --server stops at once, saying what to fix", .serialized)
struct MisaddressedSinkTests {
    @Test("https:// at a plain sink: stops at once, 'does not speak TLS', no BoringSSL path; a host that does not resolve: stops at once")
    func misaddressed() async throws {
        let fixture = try SyncFixture(intervals: 3, samplesPerInterval: 2)
        try await SinkHarness.withSink { port in
            let (status, run) = try await StepSyncProcess.run(["sync", "--data-dir", fixture.path, "--json",
                                                               "--server", "https://127.0.0.1:\(port)", "--give-up-after", "30"])
            #expect(status == 1)
            let gaveUp = try #require(try run.json()["gaveUp"] as? String)
            #expect(gaveUp.contains("does not speak TLS at that port") && gaveUp.contains("use http://"), "\(gaveUp)")
            #expect(!gaveUp.contains(".cc") && !gaveUp.contains("/build"), "\(gaveUp)")
        }
        let (status, run) = try await StepSyncProcess.run(["sync", "--data-dir", fixture.path, "--json",
                                                           "--server", "http://no-such-host.invalid:8000", "--give-up-after", "30"])
        #expect(status == 1)
        let object = try run.json()
        let gaveUp = try #require(object["gaveUp"] as? String)
        #expect(gaveUp.contains("cannot resolve host no-such-host.invalid") && gaveUp.contains("check the host name"), "\(gaveUp)")
        #expect(object["serverWaits"] as? Int == 0, "no wait: waiting does not mend a name that does not resolve")
    }

    @Test("the messages: a certificate for another name does not ask for --cacert; a closed http:// connection hints at https://")
    func messages() {
        let other = SinkFailure(.untrusted, detail: SinkFailure.anotherHostsCertificate).message(server: "https://sink.example")
        #expect(other.contains("for another host name") && !other.contains("--cacert"))
        let closed = SinkFailure(.unreachable, detail: "connection closed by the server").message(server: "http://127.0.0.1:8443")
        #expect(closed.contains("use https://"))
        let refused = SinkFailure(.unreachable, detail: "connection refused").message(server: "http://127.0.0.1:8443")
        #expect(!refused.contains("https://"))
        #expect(SinkFailure(.misaddressed, detail: "x").isFatal && !SinkFailure(.unreachable, detail: "x").isFatal)
    }
}
