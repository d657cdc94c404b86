/// What the ``LayeringPlanner`` may ask of a sample store: one consistent view of it, through statistics and
/// tombstones only — never a raw sample.
///
/// The store answers these inside one read transaction, so a run sees every type at the same ``anchor``.
public protocol LayeringSnapshot {
    /// The statistics source a snapshot hands out.
    associatedtype Statistics: StatisticsSource

    /// The store's change sequence in this snapshot: every sample and tombstone up to it is visible, none after.
    var anchor: Int64 { get }

    /// The answer size the engine should aim for per statistics query (``LayeringEngine/maxBucketsPerQuery``): large
    /// where a query costs much more than a bucket (HealthKit; the default, 16,384), small where queries are cheap
    /// and reading buckets is what costs (a store answering from a rollup inside one transaction).
    var maxBucketsPerQuery: Int { get }

    /// Statistics over the samples of `type` whose change sequence lies in `(seqAfter, seqThrough]`.
    func statistics(of type: SampleType, seqAfter: Int64, seqThrough: Int64) throws -> Statistics

    /// Up to `limit` tombstones of `type` with a change sequence in `(seqAfter, seqThrough]` that still have to reach
    /// the sink, oldest first: not yet acknowledged by it, and whose uuid is not back in the store.
    func pendingTombstones(of type: SampleType, seqAfter: Int64, seqThrough: Int64, limit: Int) throws -> [Tombstone]
}

extension LayeringSnapshot {
    /// 16,384 buckets per query: few, large queries.
    public var maxBucketsPerQuery: Int { 16_384 }
}
