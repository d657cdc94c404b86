import Foundation
import Logging
import StepSyncCore
import StepSyncStore

extension SyncEngine {
    /// Claims, sends and marks one request's intervals — one interval, or several consecutive small ones of one type
    /// (``RequestPacking``) claimed in one transaction, sent in one body and marked synced in one transaction once the
    /// sink acknowledged it — and returns how it ended as the run machine's
    /// ``SyncRunMachine/Event/requestEnded(_:rejected:notPending:request:)`` (`request`: the number the machine sent
    /// it under). Every decision after the claim is ``RequestSendMachine``'s; this is its shell.
    func send(
        _ batch: [SyncInterval], request: Int, stop: SyncStop, bodyLimit: SharedBodyLimit
    ) async throws -> SyncRunMachine.Event {
        let claimedIds: [Int64]
        do {
            claimedIds = try await store.claim(batch.map(\.id))
        } catch is CancellationError {
            // The claim's transaction was interrupted (all or nothing); put back whatever it may have committed.
            try store.requeueClaimed(batch.map(\.id))
            return .requestEnded(.requeued(batch.count), request: request)
        }
        let notPending = batch.count - claimedIds.count
        guard !claimedIds.isEmpty else { return .requestEnded(.notPending, notPending: notPending, request: request) }
        let intervals = notPending == 0 ? batch : batch.filter { Set(claimedIds).contains($0.id) }
        var rejected: [RejectedSample] = []
        do {
            let result = try await sendClaimed(intervals, stop: stop, bodyLimit: bodyLimit, rejected: &rejected)
            return .requestEnded(result, rejected: rejected, notPending: notPending, request: request)
        } catch is CancellationError {
            try store.requeueClaimed(claimedIds)
            return .requestEnded(.requeued(claimedIds.count), rejected: rejected, notPending: notPending,
                                 request: request)
        } catch {
            // A store error: put the claims back (best effort) and let the run fail.
            try? store.requeueClaimed(claimedIds)
            throw error
        }
    }

    /// Reads and encodes the claimed `intervals`' body, then does what their ``RequestSendMachine`` says until it
    /// ends; the samples left out go to `rejected`.
    private func sendClaimed(
        _ intervals: [SyncInterval], stop: SyncStop, bodyLimit: SharedBodyLimit, rejected: inout [RejectedSample]
    ) async throws -> SyncRunMachine.RequestResult {
        let ids = intervals.map(\.id)
        var metadata: Logger.Metadata = ["sync.interval.id": "\(ids[0])"]
        if ids.count > 1 { metadata["sync.intervals"] = "\(ids.count)" }
        var payload = try IntervalPayload(of: intervals, store: store, pageSize: configuration.pageSize,
                                          nowMs: time.nowMs())
        if !payload.rejected.isEmpty {
            rejected = payload.rejected
            try store.recordRejected(rejected)
            metadata["sync.rejected"] = "\(rejected.count)"
            logger.warning("Left invalid samples out of an interval", metadata: metadata)
        }
        var machine = RequestSendMachine(
            count: payload.count, splittable: payload.isSplittable, endpointOptional: payload.endpoint.isOptional,
            policy: configuration.retryPolicy,
            seed: SplitMix64.hash(randomSeed, 0x1A7E, Int(truncatingIfNeeded: ids[0])))
        var action = machine.start()
        while true {
            switch action {
            case .send(let from):
                try Task.checkCancellation()
                let part = payload.nextPart(from: from, limit: bodyLimit.limit)
                let body = payload.body(of: part)
                let outcome = try await uploader.send(body, to: payload.endpoint,
                                                      itemCount: payload.isSplittable ? part.count : payload.count)
                if case .accepted = outcome { bodyLimit.accepted(bodyBytes: body.count) }
                action = machine.handle(.answered(outcome, part: part, bodyBytes: body.count,
                                                  stopping: stop.requestCount > 0))
                metadata["sync.attempt"] = "\(machine.attempts)"
            case .split(let reason, let bodyBytes):
                metadata["sync.limitBytes"] = "\(bodyLimit.refused(bodyBytes: bodyBytes))"
                metadata["sync.error"] = "\(reason)"
                metadata["sync.bodyBytes"] = "\(bodyBytes)"
                logger.info("A request was too large for the sink: sending it in smaller parts", metadata: metadata)
                action = machine.handle(.limitLowered)
            case .retry(let delay, let reason):
                metadata["sync.error"] = "\(reason)"
                metadata["sync.delay"] = "\(delay)"
                logger.info("Retrying an interval after a transient failure", metadata: metadata)
                let completed = await stop.wait(delay, on: time)
                if !completed { try Task.checkCancellation() }
                action = machine.handle(.waitEnded(completed: completed))
            case .dropSample(let index, let refusal):
                let removed = payload.removeSample(at: index)
                if let removed {
                    let record = RejectedSample(
                        uuid: removed.uuid, type: intervals[0].type, reason: refusal.reason, field: refusal.field,
                        detail: String(refusal.description.prefix(200)), intervalId: removed.intervalId,
                        foundBy: .sink, atMs: time.nowMs())
                    try store.recordRejected([record])
                    rejected.append(record)
                    metadata["sync.rejected.uuid"] = "\(removed.uuid)"
                    metadata["sync.error"] = "\(refusal.description)"
                    logger.warning("The sink refused a sample: left it out and resending the rest", metadata: metadata)
                }
                action = machine.handle(.sampleDropped(found: removed != nil))
            case .markSynced(let count, let total):
                try await store.markSynced(ids, atMs: time.nowMs())
                if total.saved != count {
                    metadata["sync.saved"] = "\(total.saved)"
                    metadata["sync.sent"] = "\(count)"
                    logger.warning("The sink acknowledged another number of samples than sent", metadata: metadata)
                }
                return .synced(intervals[0].kind, intervals: ids.count, count: count, total)
            case .markFailed(let message, let sends):
                metadata["sync.error"] = "\(message)"
                logger.error("Interval failed", metadata: metadata)
                guard intervals.count > 1 else {
                    try store.markFailed(ids[0], error: message, additionalAttempts: max(0, sends - 1))
                    return .failed
                }
                // Several go back to pending to be sent one by one, so the failure lands on the one that causes it.
                try store.requeueClaimed(ids, error: message)
                return .split(intervals)
            case .requeue(let reason):
                try store.requeueClaimed(ids, error: reason)
                return .requeued(ids.count)
            case .yieldToSink(let failure):
                try store.requeueClaimed(ids, error: failure.note)
                return .sinkUnavailable(intervals, failure)
            case .endpointMissing(let message):
                // A sink without /samples (HealthStepsSync, an older stepsync): these intervals stay pending, and so
                // do the others of their endpoint (the payload's endpoint is its first interval's).
                try store.requeueClaimed(ids, error: message)
                return .endpointMissing(intervals[0], message: message, intervals: ids.count)
            }
        }
    }
}
