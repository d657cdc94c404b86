import Foundation
import FuzzReplaySupport
import StepSyncCore
import Testing

/// The `hae-payload` fuzzer's corpus and crashes, and seeded mutations, through ``HAEPayloadOracle`` (see
/// `Fuzz/README.md`).
@Suite("Fuzz replay: Health Auto Export bodies")
struct HAEFuzzReplayTests {
    @Test("every hae-payload corpus and crash input, and 1,500 seeded mutations, keep HAEPayloadReader's promises")
    func haePayload() throws {
        let inputs = try FuzzCorpus("hae-payload")
        #expect(inputs.corpus.count >= 10)
        var accepted = 0
        for input in inputs.all + inputs.mutations(1_500, seed: 34) {
            #expect(input.bytes.withUnsafeBytes(HAEPayloadOracle.problems) == [], "\(input)")
            if input.bytes.count > 1, let reading = try? HAEPayloadReader(aggregation: .none).read(Data(input.bytes.dropFirst())),
               !reading.samples.isEmpty {
                accepted += 1
            }
        }
        #expect(accepted >= 7)
    }
}
