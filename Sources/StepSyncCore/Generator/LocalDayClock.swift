/// Converts wall-clock times of one local day (Europe/Berlin) to UTC milliseconds and offsets, quickly: most days
/// have one offset all day, and only the two change days take the general path.
struct LocalDayClock {
    let day: CivilDate
    private let localMidnightSeconds: Int64
    /// The offset all day, or `nil` on a day the clocks change.
    private let constantOffset: Int32?

    init(day: CivilDate) {
        self.day = day
        localMidnightSeconds = Int64(day.daysSinceEpoch) * 86_400
        let range = EuropeBerlinTime.utcRangeMs(of: day)
        let first = EuropeBerlinTime.utcOffsetSeconds(atUTCSeconds: range.lowerBound / 1000)
        let last = EuropeBerlinTime.utcOffsetSeconds(atUTCSeconds: range.upperBound / 1000 - 1)
        constantOffset = first == last ? first : nil
    }

    /// The UTC instant in ms of wall time `seconds` after local midnight, plus `extraMs`, and its UTC offset.
    @inline(__always)
    func utc(wallSeconds seconds: Int, extraMs: Int) -> (ms: Int64, offset: Int32) {
        if let offset = constantOffset {
            return ((localMidnightSeconds + Int64(seconds) - Int64(offset)) * 1000 + Int64(extraMs), offset)
        }
        let utcSeconds = EuropeBerlinTime.utcSeconds(of: day, secondsFromMidnight: seconds)
        return (utcSeconds * 1000 + Int64(extraMs), EuropeBerlinTime.utcOffsetSeconds(atUTCSeconds: utcSeconds))
    }
}
