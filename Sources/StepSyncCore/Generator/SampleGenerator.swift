/// A deterministic, streaming synthetic history of health samples — step counts by default, and with `types` the
/// other types an iPhone and an Apple Watch record (``GeneratedType``) — one local day (Europe/Berlin) at a time,
/// oldest first, each day's samples sorted by `startMs`.
///
/// The same profile, seed and days always give the same samples — uuids, dates and values — on any machine and
/// toolchain: every random choice comes from ``Xoshiro256StarStar`` streams seeded from (seed, purpose, day), never
/// from the system generator. Memory is bounded by one day's samples however many years are generated.
///
/// ```swift
/// for day in SampleGenerator(profile: .realistic, seed: 42, years: 10, end: CivilDate(year: 2025, month: 6, day: 30)) {
///     for sample in day { try inserter.insert(sample) }
/// }
/// ```
///
/// See `Planning/generator.md` for what each ``GeneratorProfile`` models and the measured densities.
public struct SampleGenerator: Sequence, Sendable {
    /// What kind of history to make.
    public let profile: GeneratorProfile
    /// The seed every random choice derives from.
    public let seed: UInt64
    /// The local days covered, oldest first.
    public let days: ClosedRange<CivilDate>
    /// The types yielded. The `seed` profile records step counts only: its other types yield nothing.
    public let types: Set<GeneratedType>
    /// Whether the days continue a stored history (`--append-days`): the `seed` profile then starts them inside a
    /// recorded stretch rather than perhaps in a gap, so appending days always adds samples. (The `realistic`
    /// profile's days do not depend on the range, so it needs no such care.)
    public let continuing: Bool

    /// A history of `years` years ending on `end` (inclusive): from the day after the same date `years` years
    /// earlier (28 February standing in for a missing 29th).
    public init(profile: GeneratorProfile, seed: UInt64, years: Int = 10, end: CivilDate,
                types: Set<GeneratedType> = [.steps]) {
        precondition(years >= 1, "years must be at least 1")
        let year = end.year - years
        let sameDay = CivilDate(year: year, month: end.month, day: Swift.min(end.day, CivilDate.daysIn(month: end.month, year: year)))
        self.init(profile: profile, seed: seed, days: sameDay.advanced(by: 1)...end, types: types)
    }

    /// A history of exactly `days` (`continuing` when it extends a stored history by a few days).
    public init(profile: GeneratorProfile, seed: UInt64, days: ClosedRange<CivilDate>, types: Set<GeneratedType> = [.steps],
                continuing: Bool = false) {
        self.profile = profile
        self.seed = seed
        self.days = days
        self.types = types
        self.continuing = continuing
    }

    /// The number of days the sequence yields.
    public var dayCount: Int { days.count }

    /// An iterator over the days.
    public func makeIterator() -> Iterator { Iterator(generator: self) }

    /// Yields one local day's samples at a time (an empty array for a day without any).
    public struct Iterator: IteratorProtocol {
        private var upcoming: CivilDate
        private let last: CivilDate
        private var planner: Planner

        private enum Planner {
            /// Step counts alone: the planner's own path, exactly as before other types existed.
            case realistic(RealisticDayPlanner)
            case realisticTypes(RealisticTypesRecorder)
            case seed(SeedDayPlanner)
            case nothing
        }

        init(generator: SampleGenerator) {
            upcoming = generator.days.lowerBound
            last = generator.days.upperBound
            switch generator.profile {
            case .realistic where generator.types == [.steps]:
                planner = .realistic(RealisticDayPlanner(seed: generator.seed))
            case .realistic:
                planner = .realisticTypes(RealisticTypesRecorder(seed: generator.seed, types: generator.types))
            case .seed where generator.types.contains(.steps):
                planner = .seed(SeedDayPlanner(seed: generator.seed, days: generator.days, startRecording: generator.continuing))
            case .seed:
                planner = .nothing
            }
        }

        /// The samples of the next day, sorted by start; `nil` after the last day.
        public mutating func next() -> [HealthSample]? {
            guard upcoming <= last else { return nil }
            let day = upcoming
            upcoming = day.advanced(by: 1)
            switch planner {
            case .realistic(let p):
                return p.samples(of: day)
            case .realisticTypes(let r):
                return r.samples(of: day)
            case .nothing:
                return []
            case .seed(var p):
                let samples = p.samples(of: day)
                planner = .seed(p)
                return samples
            }
        }
    }
}
