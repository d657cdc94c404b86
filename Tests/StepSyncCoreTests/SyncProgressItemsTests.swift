import StepSyncCore
import Testing

/// The run's progress counts samples, not intervals (issue 32.13): a bar over intervals read "95 %" with a third of
/// the samples sent when the last intervals were the large ones.
@Suite("Sync progress counts the samples of finished intervals")
struct SyncProgressItemsTests {
    static func interval(_ id: Int64, samples: Int) -> SyncInterval {
        SyncInterval(id: id, type: .stepCount, range: TimeRange(start: id * 1_000, end: (id + 1) * 1_000),
                     steps: 0, samples: samples)
    }

    static func progress(_ actions: [SyncRunMachine.Action]) -> SyncRunMachine.Progress? {
        for case .progress(let progress) in actions.reversed() { return progress }
        return nil
    }

    @Test("19 intervals of 10 samples and one of 3,800: after the small ones, 95 % of intervals but 4.8 % of samples; a failure counts, a requeue does not")
    func itemsNotIntervals() {
        let queue = (1...19).map { Self.interval($0, samples: 10) } + [Self.interval(20, samples: 3_800)]
        var machine = SyncRunMachine(queue: queue, configuration: .init(concurrency: 1, maxSamplesPerRequest: 0,
                                                                         outagePolicy: .init(), probeFirst: false),
                                     randomSeed: 1)
        let ack = SinkAcknowledgement(saved: 10, inserted: 10, duplicates: 0)
        var actions = machine.handle(.started, stopRequests: 0, at: .zero)
        var last: SyncRunMachine.Progress?
        var sent: [Int] = []
        for index in 0..<19 {
            for case .send(let batch, let request) in actions {
                #expect(batch.count == 1)
                sent.append(request)
            }
            let result: SyncRunMachine.RequestResult = index == 4 ? .failed
                : .synced(.samples, intervals: 1, count: 10, ack)
            actions = machine.handle(.requestEnded(result, request: sent[index]), stopRequests: 0,
                                     at: .seconds(Double(index + 1)))
            last = Self.progress(actions) ?? last
        }
        for case .send(_, let request) in actions { sent.append(request) }
        #expect(sent.count == 20)
        let afterSmall = try! #require(last)
        #expect(afterSmall.done == 19 && afterSmall.total == 20)
        #expect(afterSmall.itemsDone == 190 && afterSmall.itemsTotal == 3_990)
        // The large one comes back pending (the sink away): not done yet.
        actions = machine.handle(.requestEnded(.sinkUnavailable([Self.interval(20, samples: 3_800)],
                                                                 SinkFailure(.unreachable, detail: "refused")), request: sent[19]),
                                 stopRequests: 0, at: .seconds(21))
        #expect(Self.progress(actions)?.itemsDone == 190)
    }
}
