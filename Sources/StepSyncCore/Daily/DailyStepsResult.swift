/// Daily step totals: one entry for every day of the request, in order, and the one JSON form both the sink and
/// `stepsync stats --daily --json` print:
/// `{"tz":"Europe/Berlin","from":"2025-05-11","to":"2025-05-12","unmatched":[],"days":[{"date":"2025-05-11","steps":8123},…]}`.
/// `from` and `to` are the range answered (chosen by the sink when the request named none), `null` when it has no day;
/// `unmatched` lists the priority's names that no sample of the range came from (a typo there would otherwise change
/// the totals without a word).
public struct DailyStepsResult: Hashable, Sendable {
    /// One local day's total.
    public struct Day: Hashable, Sendable {
        /// The local date.
        public var date: CivilDate
        /// The total in whole steps: ``microSteps`` rounded to the nearest step, halves up.
        public var steps: Int64
        /// The exact sum of the day's shares, in millionths of a step (each share rounded to a millionth).
        public var microSteps: Int64

        /// A day's total from its sum in millionths of a step.
        public init(date: CivilDate, microSteps: Int64) {
            self.date = date
            self.microSteps = microSteps
            self.steps = microSteps / 1_000_000 + (microSteps % 1_000_000 >= 500_000 ? 1 : 0)
        }
    }

    /// The time zone's name as the request gave it.
    public var timeZoneName: String
    /// Every day of the request, in order.
    public var days: [Day]
    /// The priority's names (as given) that matched no sample's device in the range.
    public var unmatched: [String]

    /// Creates a result.
    public init(timeZoneName: String, days: [Day], unmatched: [String] = []) {
        self.timeZoneName = timeZoneName
        self.days = days
        self.unmatched = unmatched
    }

    /// The sum of the days' ``Day/steps``.
    public var totalSteps: Int64 { days.reduce(0) { $0 + $1.steps } }

    /// The first day answered (`nil`: none).
    public var from: CivilDate? { days.first?.date }
    /// The last day answered (`nil`: none).
    public var to: CivilDate? { days.last?.date }

    /// The answer as compact JSON (no trailing newline), keys in this order: `tz`, `from`, `to`, `unmatched`, `days`;
    /// each day `date`, `steps`.
    public var json: String {
        var out = "{\"tz\":"
        out.reserveCapacity(64 + days.count * 36)
        out += JSONBytes.quoted(timeZoneName)
        out += ",\"from\":" + (from.map { "\"\($0)\"" } ?? "null")
        out += ",\"to\":" + (to.map { "\"\($0)\"" } ?? "null")
        out += ",\"unmatched\":["
        for (index, name) in unmatched.enumerated() {
            if index > 0 { out += "," }
            out += JSONBytes.quoted(name)
        }
        out += "],\"days\":["
        for (index, day) in days.enumerated() {
            if index > 0 { out += "," }
            out += "{\"date\":\"\(day.date)\",\"steps\":\(day.steps)}"
        }
        out += "]}"
        return out
    }
}
