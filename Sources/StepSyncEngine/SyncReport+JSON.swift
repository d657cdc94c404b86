import Foundation
import StepSyncCore

/// `stepsync sync --json`: the report as one object (`docs/json/sync.schema.json`), instants in ISO-8601 UTC.
extension SyncReport: Encodable {
    private enum Key: String, CodingKey {
        case synced, failed, failedThisRun, pending, requeued, recoveredInFlight, samples, inserted, duplicates
        case deletionsSent, deleted, seconds, samplesPerSecond, intervals, totalSynced, stopped, complete, types
        case gaveUp, tooLarge, requestLimitBytes, peakInFlight, window, roundTripMs, serverWaits, unsupported, skipped
        case serverWaitSeconds, failures, rejectedThisRun, rejectedTotal, rejected
    }

    /// Encodes the report's `--json` object; `null` for what it does not have (`gaveUp`, `requestLimitBytes`,
    /// `roundTripMs`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(run.synced, forKey: .synced)
        try c.encode(failed, forKey: .failed)
        try c.encode(run.failed, forKey: .failedThisRun)
        try c.encode(pending, forKey: .pending)
        try c.encode(run.requeued, forKey: .requeued)
        try c.encode(recoveredInFlight, forKey: .recoveredInFlight)
        try c.encode(run.samples, forKey: .samples)
        try c.encode(run.inserted, forKey: .inserted)
        try c.encode(run.duplicates, forKey: .duplicates)
        try c.encode(run.deletionsSent, forKey: .deletionsSent)
        try c.encode(run.deleted, forKey: .deleted)
        try c.encode(seconds, forKey: .seconds)
        try c.encode(samplesPerSecond.rounded(), forKey: .samplesPerSecond)
        try c.encode(totalIntervals, forKey: .intervals)
        try c.encode(totalSynced, forKey: .totalSynced)
        try c.encode(run.stopped, forKey: .stopped)
        try c.encode(isComplete, forKey: .complete)
        try c.encode(types.map(\.rawValue), forKey: .types)
        try c.encode(gaveUp, forKey: .gaveUp)
        try c.encode(tooLarge, forKey: .tooLarge)
        try c.encode(requestLimitBytes, forKey: .requestLimitBytes)
        try c.encode(run.peakInFlight, forKey: .peakInFlight)
        try c.encode(window, forKey: .window)
        try c.encode(roundTripMs, forKey: .roundTripMs)
        try c.encode(run.serverWaits, forKey: .serverWaits)
        try c.encode(unsupported, forKey: .unsupported)
        try c.encode(run.skipped, forKey: .skipped)
        try c.encode(run.serverWaitSeconds, forKey: .serverWaitSeconds)
        try c.encode(failures.map(FailureJSON.init), forKey: .failures)
        try c.encode(run.rejectedCount, forKey: .rejectedThisRun)
        try c.encode(rejectedTotal, forKey: .rejectedTotal)
        try c.encode(run.rejected.map(RejectedJSON.init), forKey: .rejected)
    }

    /// A failed interval: `{"id","type","start","end","attempts","message"}`.
    private struct FailureJSON: Encodable {
        var id: Int64, type: String, start: String, end: String, attempts: Int, message: String

        init(_ failure: SyncFailure) {
            (id, type, attempts, message) = (failure.intervalId, failure.type.rawValue, failure.attempts,
                                             failure.message)
            (start, end) = (ISO8601Millis.format(failure.range.start), ISO8601Millis.format(failure.range.end))
        }
    }

    /// A sample left out: `{"uuid","type","reason","field","detail","interval","foundBy","at"}` (`field` and
    /// `interval` may be `null`).
    private struct RejectedJSON: Encodable {
        var sample: RejectedSample

        init(_ sample: RejectedSample) { self.sample = sample }

        private enum Key: String, CodingKey { case uuid, type, reason, field, detail, interval, foundBy, at }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(sample.uuid.uuidString, forKey: .uuid)
            try c.encode(sample.type.rawValue, forKey: .type)
            try c.encode(sample.reason, forKey: .reason)
            try c.encode(sample.field, forKey: .field)
            try c.encode(sample.detail, forKey: .detail)
            try c.encode(sample.intervalId, forKey: .interval)
            try c.encode(sample.foundBy.rawValue, forKey: .foundBy)
            try c.encode(ISO8601Millis.format(sample.atMs), forKey: .at)
        }
    }
}
