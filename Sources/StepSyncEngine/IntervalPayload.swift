import Foundation
import StepSyncCore
import StepSyncStore

/// What one request sends: its endpoint, its encoded body, and — for samples — the samples in body order with the
/// interval each belongs to (so a sample the sink refuses by index can be left out, recorded against its interval,
/// and the body rebuilt).
///
/// A request carries one interval, or several consecutive samples intervals of one type (``RequestBatch``): their
/// samples are read in one read transaction, each checked with ``SampleValidation`` (an invalid one is left out and
/// returned in ``rejected``), and encoded once; the same bytes are resent on retries.
struct IntervalPayload {
    /// Where the body goes.
    let endpoint: SinkEndpoint
    /// The encoded request body.
    private(set) var body: [UInt8]
    /// The samples in the body, in order (empty for a deletions interval).
    private(set) var samples: [HealthSample]
    /// For each sample of ``samples``, the id of its interval.
    private(set) var owners: [Int64]
    /// The samples (or deleted uuids) the body carries.
    private(set) var count: Int
    /// The samples left out because ``SampleValidation`` found them invalid.
    let rejected: [RejectedSample]

    /// Reads and encodes the content of `intervals` (one deletions interval, or samples intervals of one type).
    ///
    /// A samples interval sends its samples (start in its range, change sequence in its window), read page by page
    /// and encoded once with ``WireEncoder``: `POST /steps` for step counts, `POST /samples` for every other type. A
    /// deletions interval sends the uuids of the tombstones in its sequence window; resending one is harmless (the
    /// sink counts the uuids it no longer holds as missing).
    init(of intervals: [SyncInterval], store: StepStore, pageSize: Int, nowMs: Int64) throws {
        let first = intervals[0]
        let endpoint = SinkEndpoint.of(first)
        self.endpoint = endpoint
        switch first.kind {
        case .samples:
            let kind = first.type.kind
            var samples: [HealthSample] = []
            var owners: [Int64] = []
            let expected = intervals.reduce(0) { $0 + $1.samples }
            samples.reserveCapacity(expected)
            owners.reserveCapacity(expected)
            var rejected: [RejectedSample] = []
            try store.forEachSamplePage(of: intervals, pageSize: pageSize) { interval, page in
                for sample in page {
                    if let problem = SampleValidation.problem(of: sample, kind: kind) {
                        rejected.append(RejectedSample(sample, problem: problem, intervalId: interval.id, atMs: nowMs))
                    } else {
                        samples.append(sample)
                        owners.append(interval.id)
                    }
                }
            }
            self.samples = samples
            self.owners = owners
            self.rejected = rejected
            count = samples.count
            body = Self.encode(samples, endpoint: endpoint)
        case .deletions:
            precondition(intervals.count == 1, "a deletions interval is sent alone")
            var uuids: [UUID] = []
            var after = first.seqAfter
            while true {
                let page = try store.tombstones(of: first.type, seqAfter: after, seqThrough: first.seqThrough,
                                                limit: pageSize)
                uuids.append(contentsOf: page.lazy.map(\.uuid))
                guard page.count == pageSize, let last = page.last else { break }
                after = last.seq
            }
            samples = []
            owners = []
            rejected = []
            count = uuids.count
            body = WireEncoder.encodeDeletions(uuids, type: endpoint == .samplesDelete ? first.type : nil)
        }
    }

    /// Leaves out the sample at `index` of the body (one the sink refused) and rebuilds the body. Returns the sample
    /// and its interval's id, or `nil` when the index is not one of this body's samples.
    mutating func removeSample(at index: Int) -> (sample: HealthSample, intervalId: Int64)? {
        guard samples.indices.contains(index) else { return nil }
        let sample = samples.remove(at: index)
        let owner = owners.remove(at: index)
        count = samples.count
        body = Self.encode(samples, endpoint: endpoint)
        return (sample, owner)
    }

    private static func encode(_ samples: [HealthSample], endpoint: SinkEndpoint) -> [UInt8] {
        endpoint == .steps ? WireEncoder.encodeRequest(samples) : WireEncoder.encodeSamplesRequest(samples)
    }
}
