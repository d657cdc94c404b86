import StepSyncCore
import Testing

/// The rule that decides whether a sync may send only what is pending (``SinkTarget``), as a table.
@Suite("SinkTarget: the ledger's sink and client")
struct SinkTargetTests {
    static let a = SinkTarget(server: "http://127.0.0.1:8000", sink: "aaaa", token: "t1")

    @Test("the decision table", arguments: [
        // (recorded, now, hasSynced, sends)
        (nil, a, true, true),
        (a, SinkTarget(server: "http://127.0.0.1:9000", sink: "bbbb", token: "t1"), false, true),
        (a, a, true, true),
        (a, SinkTarget(server: "http://sink.example:8000", sink: "aaaa", token: "t1"), true, true),  // moved, same data
        (a, SinkTarget(server: "http://127.0.0.1:9000", sink: "bbbb", token: "t1"), true, false),
        (a, SinkTarget(server: "http://127.0.0.1:8000", sink: "bbbb", token: "t1"), true, false),   // wiped, same address
        (a, SinkTarget(server: "http://127.0.0.1:8000", sink: "aaaa", token: "t2"), true, false),   // another client
        (a, SinkTarget(server: "http://127.0.0.1:8000", sink: "aaaa", token: nil), true, false),
        (SinkTarget(server: "http://127.0.0.1:8000/", sink: nil, token: nil),
         SinkTarget(server: "HTTP://127.0.0.1:8000", sink: "cccc", token: "t9"), true, true),     // an older ledger
        (SinkTarget(server: "http://127.0.0.1:8000", sink: nil, token: nil),
         SinkTarget(server: "http://127.0.0.1:9000", sink: "cccc", token: nil), true, false),
        (a, SinkTarget(server: "http://127.0.0.1:8000", sink: nil, token: "t1"), true, true),      // an older sink
    ] as [(SinkTarget?, SinkTarget, Bool, Bool)])
    func decisions(_ recorded: SinkTarget?, _ now: SinkTarget, _ hasSynced: Bool, _ sends: Bool) {
        let decision = now.check(recorded: recorded, hasSynced: hasSynced)
        #expect((decision == .send) == sends, "\(String(describing: recorded)) → \(now): \(decision)")
        if case .stop(let message) = decision {
            #expect(message.contains("--resend") && message.contains(now.server))
        }
    }

    @Test("a token's fingerprint: 16 hex digits, stable, different per token, nil for none")
    func fingerprint() {
        let one = SinkTarget.fingerprint(token: "ss_abc")
        #expect(one?.count == 16 && one?.allSatisfy(\.isHexDigit) == true)
        #expect(one == SinkTarget.fingerprint(token: "ss_abc") && one != SinkTarget.fingerprint(token: "ss_abd"))
        #expect(SinkTarget.fingerprint(token: nil) == nil && SinkTarget.fingerprint(token: "") == nil)
        // SHA-256("abc") begins ba7816bf8f01cfea.
        #expect(SinkTarget.fingerprint(token: "abc") == "ba7816bf8f01cfea")
    }
}
