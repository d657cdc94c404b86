/// Which intervals share one request: consecutive samples intervals of one type, up to a bound on samples.
///
/// The ledger stays per interval (each is claimed, marked and resumed on its own), but a request may carry several
/// small intervals: the original's density (≈ 19 samples an interval) would otherwise pay a round trip, a claim, a
/// mark and the sink's durable commit for every 19 samples. The body stays bounded by `maxSamples` (by default the
/// layering's own bound on one interval, so no request is larger than the largest interval could be), and one
/// acknowledgement covers every interval in it.
///
/// Rules, for the intervals `pending` in queue order:
/// - the first is always taken (an interval larger than `maxSamples` goes alone);
/// - a deletions interval goes alone, and `maxSamples <= 0` sends every interval alone;
/// - the next ones are added while they are samples intervals of the first's type and the sum of their ledger sample
///   counts stays within `maxSamples`, up to `maxIntervals`;
/// - a series type (route and ECG parts, ``SeriesLimits``) packs no more parts than one of its intervals holds.
///
/// O(k) for the k intervals taken.
public enum RequestPacking {
    /// How many intervals from the front of `pending` one request carries (≥ 1 unless `pending` is empty).
    public static func count(
        _ pending: some Collection<SyncInterval>, maxSamples: Int, maxIntervals: Int = 1_000
    ) -> Int {
        guard let first = pending.first else { return 0 }
        guard maxSamples > 0, first.kind == .samples else { return 1 }
        // A series part carries up to 56 KiB of points: a request holds no more parts than one series interval.
        let maxSamples = first.type.kind == .series ? min(maxSamples, SeriesLimits.maxPartsPerInterval) : maxSamples
        var taken = 1
        var samples = first.samples
        for interval in pending.dropFirst() {
            guard taken < maxIntervals, interval.kind == .samples, interval.type == first.type,
                  samples + interval.samples <= maxSamples
            else { break }
            samples += interval.samples
            taken += 1
        }
        return taken
    }
}
