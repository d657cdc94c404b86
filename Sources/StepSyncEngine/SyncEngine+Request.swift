import Foundation
import Logging
import StepSyncCore
import StepSyncStore

extension SyncEngine {
    /// Claims, sends (with retries) and marks one request's intervals: one interval, or several consecutive small
    /// ones of one type (``RequestPacking``) claimed in one transaction, sent in one body and marked synced in one
    /// transaction once the sink acknowledged it. Also returns the samples it left out as invalid, and how many of
    /// `batch` were no longer pending — the ``SyncRunMachine/Event/requestEnded(_:rejected:notPending:request:)`` the
    /// run's machine takes in (`request`: the number the machine sent it under).
    func send(
        _ batch: [SyncInterval], request: Int, stop: SyncStop, bodyLimit: SharedBodyLimit
    ) async throws -> SyncRunMachine.Event {
        let (result, rejected, notPending) = try await sendRequest(batch, stop: stop, bodyLimit: bodyLimit)
        return .requestEnded(result, rejected: rejected, notPending: notPending, request: request)
    }

    /// ``send(_:request:stop:bodyLimit:)``'s work: the request's result, the samples left out, the intervals not pending.
    private func sendRequest(
        _ batch: [SyncInterval], stop: SyncStop, bodyLimit: SharedBodyLimit
    ) async throws -> (SyncRunMachine.RequestResult, [RejectedSample], notPending: Int) {
        let claimedIds: [Int64]
        do {
            claimedIds = try await store.claim(batch.map(\.id))
        } catch is CancellationError {
            // The claim's transaction was interrupted (all or nothing); put back whatever it may have committed.
            try store.requeueClaimed(batch.map(\.id))
            return (.requeued(batch.count), [], 0)
        }
        let notPending = batch.count - claimedIds.count
        guard !claimedIds.isEmpty else { return (.notPending, [], notPending) }
        let intervals = notPending == 0 ? batch : batch.filter { Set(claimedIds).contains($0.id) }
        let ids = claimedIds
        let kind = intervals[0].kind
        var metadata: Logger.Metadata = ["sync.interval.id": "\(ids[0])"]
        if ids.count > 1 { metadata["sync.intervals"] = "\(ids.count)" }
        var rejected: [RejectedSample] = []
        let none = SinkAcknowledgement(saved: 0, inserted: 0, duplicates: 0)
        do {
            var payload = try IntervalPayload(of: intervals, store: store, pageSize: configuration.pageSize,
                                              nowMs: time.nowMs())
            if !payload.rejected.isEmpty {
                rejected = payload.rejected
                try store.recordRejected(rejected)
                metadata["sync.rejected"] = "\(rejected.count)"
                logger.warning("Left invalid samples out of an interval", metadata: metadata)
            }
            if payload.count == 0 {
                // Nothing to send (the samples were deleted since layering, or all are invalid): done without a
                // request.
                try await store.markSynced(ids, atMs: time.nowMs())
                return (.synced(kind, intervals: ids.count, count: 0, none), rejected, notPending)
            }
            var machine = IntervalSendMachine(policy: configuration.retryPolicy)
            var random = SplitMix64(seed: SplitMix64.hash(randomSeed, 0x1A7E, Int(truncatingIfNeeded: ids[0])))
            // Samples 0..<acknowledged of the payload are acknowledged (the parts sent so far of a body cut to fit
            // the sink's limit); their acknowledgements add up in `total`.
            var acknowledged = 0
            var total = none
            while true {
                try Task.checkCancellation()
                let range = nextPart(of: payload, from: acknowledged, limit: bodyLimit.limit)
                let body = payload.isSplittable ? payload.body(of: range) : payload.body
                machine.startSend(samples: payload.isSplittable ? range.count : 1)
                let outcome = try await uploader.send(body, to: payload.endpoint,
                                                      itemCount: payload.isSplittable ? range.count : payload.count)
                if let message = Self.missingEndpoint(outcome, payload.endpoint) {
                    // A sink without /samples (HealthStepsSync, an older stepsync): a fact about the sink, not about
                    // these intervals — they stay pending, and so do the others of their endpoint (the payload's
                    // endpoint is its first interval's).
                    try store.requeueClaimed(ids, error: message)
                    return (.endpointMissing(intervals[0], message: message, intervals: ids.count), rejected,
                            notPending)
                }
                let action = machine.received(outcome, stopping: stop.requestCount > 0, using: &random)
                metadata["sync.attempt"] = "\(machine.attempts)"
                switch action {
                case .markSynced(let ack):
                    bodyLimit.accepted(bodyBytes: body.count)
                    total.saved += ack.saved
                    total.inserted += ack.inserted
                    total.duplicates += ack.duplicates
                    total.deleted += ack.deleted
                    acknowledged = payload.isSplittable ? range.upperBound : payload.count
                    if acknowledged < payload.count {
                        // A part of a body cut to fit. The intervals are marked synced only once every part is
                        // acknowledged (a crash between parts resends them whole). A pause stops here: they go back
                        // to pending, and the next run resends them (the sink counts the parts it has as duplicates).
                        if stop.requestCount > 0 {
                            try store.requeueClaimed(ids, error: "paused between the parts of a split request")
                            return (.requeued(ids.count), rejected, notPending)
                        }
                        machine = IntervalSendMachine(policy: configuration.retryPolicy)
                        continue
                    }
                    try await store.markSynced(ids, atMs: time.nowMs())
                    if total.saved != payload.count {
                        metadata["sync.saved"] = "\(total.saved)"
                        metadata["sync.sent"] = "\(payload.count)"
                        logger.warning("The sink acknowledged another number of samples than sent", metadata: metadata)
                    }
                    return (.synced(kind, intervals: ids.count, count: payload.count, total), rejected, notPending)
                case .split(let reason):
                    let limit = bodyLimit.refused(bodyBytes: body.count)
                    metadata["sync.error"] = "\(reason)"
                    metadata["sync.bodyBytes"] = "\(body.count)"
                    metadata["sync.limitBytes"] = "\(limit)"
                    logger.info("A request was too large for the sink: sending it in smaller parts", metadata: metadata)
                case .retry(let delay, let reason):
                    metadata["sync.error"] = "\(reason)"
                    metadata["sync.delay"] = "\(delay)"
                    logger.info("Retrying an interval after a transient failure", metadata: metadata)
                    guard await Self.wait(delay, on: time, unlessStopped: stop) else {
                        try Task.checkCancellation()
                        guard case .requeue(let why) = machine.paused() else { preconditionFailure() }
                        try store.requeueClaimed(ids, error: "\(reason) (\(why))")
                        return (.requeued(ids.count), rejected, notPending)
                    }
                case .dropSample(let refusal):
                    // The index is the sample's in the body sent: the part's.
                    guard let removed = payload.removeSample(at: range.lowerBound + refusal.index) else {
                        let result = try fail(intervals, message: refusal.description, sends: machine.sends)
                        return (result, rejected, notPending)
                    }
                    let record = RejectedSample(
                        uuid: removed.uuid, type: intervals[0].type, reason: refusal.reason, field: refusal.field,
                        detail: String(refusal.description.prefix(200)), intervalId: removed.intervalId,
                        foundBy: .sink, atMs: time.nowMs())
                    try store.recordRejected([record])
                    rejected.append(record)
                    metadata["sync.rejected.uuid"] = "\(removed.uuid)"
                    metadata["sync.error"] = "\(refusal.description)"
                    logger.warning("The sink refused a sample: left it out and resending the rest", metadata: metadata)
                    if payload.count == acknowledged {
                        try await store.markSynced(ids, atMs: time.nowMs())
                        return (.synced(kind, intervals: ids.count, count: payload.count, total), rejected, notPending)
                    }
                case .markFailed(let message):
                    metadata["sync.error"] = "\(message)"
                    logger.error("Interval failed", metadata: metadata)
                    return (try fail(intervals, message: message, sends: machine.sends), rejected, notPending)
                case .requeue(let reason):
                    try store.requeueClaimed(ids, error: reason)
                    return (.requeued(ids.count), rejected, notPending)
                case .yieldToSink(let failure):
                    try store.requeueClaimed(ids, error: failure.note)
                    return (.sinkUnavailable(intervals, failure), rejected, notPending)
                }
            }
        } catch is CancellationError {
            try store.requeueClaimed(ids)
            return (.requeued(ids.count), rejected, notPending)
        } catch {
            // A store error: put the claims back (best effort) and let the run fail.
            try? store.requeueClaimed(ids)
            throw error
        }
    }

    /// The samples of the next request of `payload`, from sample `start` on: all of them while no limit is known,
    /// else the first part ``RequestSplit`` cuts to fit `limit` (packed intervals apart first, then one interval's
    /// samples).
    private func nextPart(of payload: IntervalPayload, from start: Int, limit: Int?) -> Range<Int> {
        guard payload.isSplittable, start < payload.count else { return start..<payload.count }
        guard let limit else { return start..<payload.count }
        // The usual request fits whole: no sizes to add up.
        if start == 0, payload.body.count <= limit { return 0..<payload.count }
        let parts = RequestSplit.parts(sizes: payload.objectSizes(from: start),
                                       owners: Array(payload.owners(from: start)),
                                       overhead: IntervalPayload.overhead, limit: limit)
        guard let first = parts.first else { return start..<payload.count }
        return (start + first.lowerBound)..<(start + first.upperBound)
    }

    /// A permanent failure: one interval is marked `failed` with `message`, its ledger attempts counting each of the
    /// run's `sends` (the claim counted the first); several are put back to pending to be sent one by one, so that the
    /// failure lands on the interval that causes it.
    private func fail(
        _ intervals: [SyncInterval], message: String, sends: Int
    ) throws -> SyncRunMachine.RequestResult {
        if intervals.count == 1 {
            try store.markFailed(intervals[0].id, error: message, additionalAttempts: max(0, sends - 1))
            return .failed
        }
        try store.requeueClaimed(intervals.map(\.id), error: message)
        return .split(intervals)
    }

    // MARK: - Helpers

    /// The sink's message when `outcome` says it does not serve `endpoint` at all: a 404 or 405 to `/samples` or
    /// `/samples/delete` (step counts' endpoints are the HealthStepsSync wire every sink serves).
    static func missingEndpoint(_ outcome: UploadOutcome, _ endpoint: SinkEndpoint) -> String? {
        guard endpoint == .samples || endpoint == .samplesDelete,
              case .rejected(let status, let message, _) = outcome, status == 404 || status == 405
        else { return nil }
        return "HTTP \(status): \(message.prefix(120))"
    }
}
