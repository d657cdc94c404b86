import Foundation
import StepSyncCore
import StepSyncStore

/// What one request sends: its endpoint, its encoded body, and — for samples — the uuid, the interval and the place
/// in the body of each sample (so a sample the sink refuses by index can be left out, recorded against its interval,
/// and cut out of the body).
///
/// A request carries one interval, or several consecutive samples intervals of one type (``RequestBatch``): their
/// samples are read in one read transaction row by row (``StepStore/forEachSampleRow(of:pageSize:_:)``), each checked
/// with ``SampleValidation`` (an invalid one is left out and returned in ``rejected``), and written to the body
/// straight from the row — no ``HealthSample`` per sample; the same bytes are resent on retries.
struct IntervalPayload {
    /// Where the body goes.
    let endpoint: SinkEndpoint
    /// The encoded request body.
    private(set) var body: [UInt8]
    /// The uuids of the samples in the body, in order (empty for a deletions interval).
    private(set) var uuids: [UUID]
    /// For each sample of ``uuids``, the id of its interval.
    private(set) var owners: [Int64]
    /// For each sample of ``uuids``, where its object starts in ``body``.
    private(set) var offsets: [Int]
    /// The samples (or deleted uuids) the body carries.
    private(set) var count: Int
    /// The samples left out because ``SampleValidation`` found them invalid.
    let rejected: [RejectedSample]

    /// Reads and encodes the content of `intervals` (one deletions interval, or samples intervals of one type).
    ///
    /// A samples interval sends its samples (start in its range, change sequence in its window), read row by row and
    /// encoded once with ``WireEncoder``: `POST /steps` for step counts, `POST /samples` for every other type. A
    /// deletions interval sends the uuids of the tombstones in its sequence window; resending one is harmless (the
    /// sink counts the uuids it no longer holds as missing).
    init(of intervals: [SyncInterval], store: StepStore, pageSize: Int, nowMs: Int64) throws {
        let first = intervals[0]
        let endpoint = SinkEndpoint.of(first)
        self.endpoint = endpoint
        switch first.kind {
        case .samples:
            let type = first.type
            let kind = type.kind
            let steps = endpoint == .steps
            var uuids: [UUID] = []
            var owners: [Int64] = []
            var offsets: [Int] = []
            let expected = intervals.reduce(0) { $0 + $1.samples }
            uuids.reserveCapacity(expected)
            owners.reserveCapacity(expected)
            offsets.reserveCapacity(expected)
            var body: [UInt8] = []
            body.reserveCapacity(16 + expected * (steps ? 200 : 300))
            body.append(contentsOf: Self.samplesPrefix)
            var rejected: [RejectedSample] = []
            // The type is the request's: its check runs once here, not once per sample.
            let typeValid = SampleValidation.typeProblem(type) == nil
            try store.forEachSampleRow(of: intervals, pageSize: pageSize) { interval, row in
                let fields = row.fields
                // Validity is proven from the row with the parts of the one validation function (the text checks
                // were made on each distinct value's bytes); anything not proven valid goes through the whole
                // function on a `HealthSample`, which has the last word.
                let proven = typeValid && row.textWithinLimits
                    && SampleValidation.instantsProblem(startMs: fields.startMs, endMs: fields.endMs) == nil
                    && SampleValidation.valueProblem(fields.value, type: type, kind: kind) == nil
                    && SampleValidation.offsetProblem(row.utcOffsetSeconds) == nil
                if !proven {
                    let sample = row.sample(type: type)
                    if let problem = SampleValidation.problem(of: sample, kind: kind) {
                        rejected.append(RejectedSample(sample, problem: problem, intervalId: interval.id, atMs: nowMs))
                        return
                    }
                }
                if !uuids.isEmpty { body.append(UInt8(ascii: ",")) }
                offsets.append(body.count)
                uuids.append(fields.uuid)
                owners.append(interval.id)
                if steps {
                    WireEncoder.appendObject(fields, to: &body)
                } else {
                    WireEncoder.appendSampleObject(fields, type: type, to: &body)
                }
            }
            body.append(contentsOf: Self.samplesSuffix)
            self.body = body
            self.uuids = uuids
            self.owners = owners
            self.offsets = offsets
            self.rejected = rejected
            count = uuids.count
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
            self.uuids = []
            owners = []
            offsets = []
            rejected = []
            count = uuids.count
            body = WireEncoder.encodeDeletions(uuids, type: endpoint == .samplesDelete ? first.type : nil)
        }
    }

    /// Leaves out the sample at `index` of the body (one the sink refused): cuts its object (and one comma) out of the
    /// body, which is then the body of the other samples. Returns the sample's uuid and its interval's id, or `nil`
    /// when the index is not one of this body's samples.
    mutating func removeSample(at index: Int) -> (uuid: UUID, intervalId: Int64)? {
        guard uuids.indices.contains(index) else { return nil }
        let last = uuids.count - 1
        let objectEnd = index < last ? offsets[index + 1] - 1 : body.count - Self.samplesSuffix.count
        // The object and the comma before it; the first object takes the comma after it instead.
        let cut = index > 0 ? (offsets[index] - 1)..<objectEnd
            : (offsets[index])..<(index < last ? objectEnd + 1 : objectEnd)
        body.removeSubrange(cut)
        let uuid = uuids.remove(at: index)
        let owner = owners.remove(at: index)
        offsets.remove(at: index)
        for i in index..<offsets.count { offsets[i] -= cut.count }
        count = uuids.count
        return (uuid, owner)
    }

    // MARK: - Parts (a body over the sink's limit, sent in several requests)

    /// Whether the body may be cut into parts: a samples body (a deletions body is sent whole).
    var isSplittable: Bool { !endpoint.isDeletion }

    /// The bytes of a body's brackets: `{"samples":[` and `]}`.
    static var overhead: Int { samplesPrefix.count + samplesSuffix.count }

    /// The size in bytes of each sample's object from `start` on (without the comma after it).
    func objectSizes(from start: Int) -> [Int] {
        let last = uuids.count - 1
        return (start..<uuids.count).map { i in
            (i < last ? offsets[i + 1] - 1 : body.count - Self.samplesSuffix.count) - offsets[i]
        }
    }

    /// The owners (interval ids) of the samples from `start` on.
    func owners(from start: Int) -> ArraySlice<Int64> { owners[start...] }

    /// The samples of the next request from sample `start` on: all of them while no limit is known (or the body
    /// cannot be cut), else the first part ``RequestSplit`` cuts to fit `limit` (packed intervals apart first, then
    /// one interval's samples).
    func nextPart(from start: Int, limit: Int?) -> Range<Int> {
        guard isSplittable, start < count, let limit else { return start..<count }
        // The usual request fits whole: no sizes to add up.
        if start == 0, body.count <= limit { return 0..<count }
        let parts = RequestSplit.parts(sizes: objectSizes(from: start), owners: Array(owners(from: start)),
                                       overhead: Self.overhead, limit: limit)
        guard let first = parts.first else { return start..<count }
        return (start + first.lowerBound)..<(start + first.upperBound)
    }

    /// The body of the samples of `range` alone: the brackets around their objects (consecutive in ``body``, commas
    /// between them). The whole body when `range` covers every sample, or when the body cannot be cut (deletions).
    func body(of range: Range<Int>) -> [UInt8] {
        guard isSplittable, range != 0..<uuids.count else { return body }
        precondition(!range.isEmpty && range.upperBound <= uuids.count, "a part of the body's samples")
        let end = range.upperBound < uuids.count ? offsets[range.upperBound] - 1 : body.count - Self.samplesSuffix.count
        var part: [UInt8] = []
        part.reserveCapacity(Self.overhead + end - offsets[range.lowerBound])
        part.append(contentsOf: Self.samplesPrefix)
        part.append(contentsOf: body[offsets[range.lowerBound]..<end])
        part.append(contentsOf: Self.samplesSuffix)
        return part
    }

    private static let samplesPrefix = Array(#"{"samples":["#.utf8)
    private static let samplesSuffix = Array("]}".utf8)
}
