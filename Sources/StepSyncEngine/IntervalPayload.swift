import Foundation
import StepSyncCore
import StepSyncStore

/// What one interval sends: its endpoint, its encoded body, and — for a samples interval — the samples in body order
/// (so a sample the sink refuses by index can be left out and the body rebuilt).
///
/// Built once per claim: the samples are read page by page, each checked with ``SampleValidation`` (an invalid one
/// is left out and returned in ``rejected``), and encoded once; the same bytes are resent on retries.
struct IntervalPayload {
    /// Where the body goes.
    let endpoint: SinkEndpoint
    /// The encoded request body.
    private(set) var body: [UInt8]
    /// The samples in the body, in order (empty for a deletions interval).
    private(set) var samples: [HealthSample]
    /// The samples (or deleted uuids) the body carries.
    private(set) var count: Int
    /// The samples left out because ``SampleValidation`` found them invalid.
    let rejected: [RejectedSample]

    /// Reads and encodes the content of `interval`.
    ///
    /// A samples interval sends its samples (start in its range, change sequence in its window), read page by page
    /// and encoded once with ``WireEncoder`` (at most a few thousand by design): `POST /steps` for step counts,
    /// `POST /samples` for every other type. A deletions interval sends the uuids of the tombstones in its sequence
    /// window; resending one is harmless (the sink counts the uuids it no longer holds as missing).
    init(of interval: SyncInterval, store: StepStore, pageSize: Int, nowMs: Int64) throws {
        let endpoint = SinkEndpoint.of(interval)
        self.endpoint = endpoint
        switch interval.kind {
        case .samples:
            let kind = interval.type.kind
            var samples: [HealthSample] = []
            samples.reserveCapacity(interval.samples)
            var rejected: [RejectedSample] = []
            try store.forEachSamplePage(for: interval, pageSize: pageSize) { page in
                for sample in page {
                    if let problem = SampleValidation.problem(of: sample, kind: kind) {
                        rejected.append(RejectedSample(sample, problem: problem, intervalId: interval.id, atMs: nowMs))
                    } else {
                        samples.append(sample)
                    }
                }
            }
            self.samples = samples
            self.rejected = rejected
            count = samples.count
            body = Self.encode(samples, endpoint: endpoint)
        case .deletions:
            var uuids: [UUID] = []
            var after = interval.seqAfter
            while true {
                let page = try store.tombstones(of: interval.type, seqAfter: after, seqThrough: interval.seqThrough,
                                                limit: pageSize)
                uuids.append(contentsOf: page.lazy.map(\.uuid))
                guard page.count == pageSize, let last = page.last else { break }
                after = last.seq
            }
            samples = []
            rejected = []
            count = uuids.count
            body = WireEncoder.encodeDeletions(uuids, type: endpoint == .samplesDelete ? interval.type : nil)
        }
    }

    /// Leaves out the sample at `index` of the body (one the sink refused) and rebuilds the body. Returns the sample,
    /// or `nil` when the index is not one of this body's samples.
    mutating func removeSample(at index: Int) -> HealthSample? {
        guard samples.indices.contains(index) else { return nil }
        let sample = samples.remove(at: index)
        count = samples.count
        body = Self.encode(samples, endpoint: endpoint)
        return sample
    }

    private static func encode(_ samples: [HealthSample], endpoint: SinkEndpoint) -> [UInt8] {
        endpoint == .steps ? WireEncoder.encodeRequest(samples) : WireEncoder.encodeSamplesRequest(samples)
    }
}
