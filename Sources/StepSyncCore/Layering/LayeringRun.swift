/// One layering run: the depth-first walk of the layers, with the query count and the packer it feeds.
///
/// Buckets are visited oldest first. A bucket is *refined* (replaced by its children on a finer layer) when it is
/// not at the finest layer and either does not fit the open interval while holding two or more samples, or is the
/// first or last bucket of the run (so the ledger starts at the first sample and ends right after the last one).
/// Everything else goes to the ``IntervalPacker`` whole.
struct LayeringRun<Source: StatisticsSource> {
    let source: Source
    let engine: LayeringEngine
    var packer: IntervalPacker
    /// Statistics queries issued so far.
    private(set) var queries = 0

    init(source: Source, engine: LayeringEngine, packer: IntervalPacker) {
        self.source = source
        self.engine = engine
        self.packer = packer
    }

    private var layers: [Int64] { LayeringEngine.layers }

    /// Layers `range` (aligned on its start) from the coarsest layer down.
    mutating func layer(_ range: TimeRange) throws {
        let top = try statistics(range, layer: 0)
        try pack(top, layer: 0, rangeEnd: range.end, holdsLast: true)
    }

    private mutating func statistics(_ range: TimeRange, layer: Int) throws -> [StatisticsBucket] {
        queries += 1
        return try source.statistics(in: range, bucketMs: layers[layer])
    }

    /// Packs `buckets` of layer `k` (all ending by `rangeEnd`), refining runs of them where needed.
    /// `holdsLast` says whether the last of `buckets` is the last non-empty bucket of the whole run.
    private mutating func pack(_ buckets: [StatisticsBucket], layer k: Int, rangeEnd: Int64, holdsLast: Bool) throws {
        let length = layers[k]
        var i = 0
        while i < buckets.count {
            let bucket = buckets[i]
            let end = min(bucket.start + length, rangeEnd)
            let isLast = holdsLast && i == buckets.count - 1
            guard k + 1 < layers.count, needsRefinement(bucket, isLast: isLast) else {
                packer.add(bucket, end: end)
                i += 1
                continue
            }
            // One query refines a run: this bucket and the following ones while the answer stays bounded.
            let target = finestLayer(count: bucket.count, span: end - bucket.start, below: k)
            var count = bucket.count
            var runEnd = end
            var next = i + 1
            while next < buckets.count {
                let candidate = buckets[next]
                let candidateEnd = min(candidate.start + length, rangeEnd)
                guard answerBound(count: count + candidate.count, span: candidateEnd - bucket.start, layer: target)
                        <= engine.maxBucketsPerQuery else { break }
                count += candidate.count
                runEnd = candidateEnd
                next += 1
            }
            let children = try statistics(TimeRange(start: bucket.start, end: runEnd), layer: target)
            try pack(children, layer: target, rangeEnd: runEnd, holdsLast: holdsLast && next == buckets.count)
            i = next
        }
    }

    /// Whether `bucket` must be split before it can be packed (it is not at the finest layer: the caller checks).
    private func needsRefinement(_ bucket: StatisticsBucket, isLast: Bool) -> Bool {
        if bucket.count >= 2 && !packer.fits(bucket) { return true }  // the cut must land inside it
        if isLast || !packer.hasStart { return bucket.count >= 1 }      // tight first start and last end
        return false
    }

    /// The finest layer below `k` whose answer for `count` samples over `span` ms is bounded by the query budget.
    private func finestLayer(count: Int, span: Int64, below k: Int) -> Int {
        var layer = layers.count - 1
        while layer > k + 1, answerBound(count: count, span: span, layer: layer) > engine.maxBucketsPerQuery {
            layer -= 1
        }
        return layer
    }

    /// At most how many non-empty buckets a query of `span` ms holding `count` samples returns on `layer`.
    private func answerBound(count: Int, span: Int64, layer: Int) -> Int {
        let buckets = (span + layers[layer] - 1) / layers[layer]
        return buckets < Int64(count) ? Int(buckets) : count
    }
}
