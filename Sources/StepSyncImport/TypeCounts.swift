import StepSyncCore

/// Counts by sample type, for long runs of one type: a run is counted in a local and added to the dictionary when
/// the type changes, so a record costs a string comparison (usually of the same cached string) rather than a hash.
struct TypeCounts {
    private var totals: [SampleType: Int] = [:]
    private var runType: SampleType?
    private var runCount = 0

    init() {}

    /// Counts one more of `type`.
    @inline(__always)
    mutating func add(_ type: SampleType) {
        if type == runType {
            runCount += 1
        } else {
            flush()
            runType = type
            runCount = 1
        }
    }

    /// The counts so far.
    var counts: [SampleType: Int] {
        var all = totals
        if let runType { all[runType, default: 0] += runCount }
        return all
    }

    private mutating func flush() {
        if let runType { totals[runType, default: 0] += runCount }
    }
}
