/// The one check of a sample's content, run at every door: the importer and the generator before storing, the
/// store's inserter, the sync engine before sending, and the sink after parsing a request. So the store never holds
/// a sample the sink would refuse, and one bad sample is caught where it enters rather than failing an interval.
///
/// The checks, in order (the first problem found is returned):
/// 1. the type identifier: 1…128 ASCII letters, digits, `_` or `.` (it names files and URL parameters);
/// 2. both instants inside ``Instants``, and `end ≥ start`;
/// 3. the value: finite; ≥ 0 for cumulative types; a step count ≤ 1,000,000 (the HealthStepsSync wire's limit); a
///    category code a whole number in 0…1,000,000;
/// 4. the UTC offset, when known, within ±18 hours;
/// 5. every text field ≤ ``maxFieldBytes`` bytes of UTF-8 and free of U+0000 (PostgreSQL's `text` cannot hold it, so
///    the sink would store it on JSONL and fail on PostgreSQL), `details` ≤ ``maxDetailsBytes`` (`details` is JSON:
///    a NUL there is the escape `\u0000`, which PostgreSQL's `json` keeps as text).
///
/// Pure and allocation-free on valid input; callers on hot paths pass the type's ``SampleKind`` they already know.
public enum SampleValidation {
    /// The longest text field accepted (UTF-8 bytes): 1 KiB.
    public static let maxFieldBytes = 1_024
    /// The longest `details` JSON object accepted (UTF-8 bytes): 64 KiB.
    public static let maxDetailsBytes = 64 << 10
    /// The largest step count of one sample (the HealthStepsSync wire's limit).
    public static let maxStepCount: Double = 1_000_000
    /// The largest category code.
    public static let maxCategoryCode: Double = 1_000_000
    /// The largest UTC offset, in seconds (ISO 8601 and `TimeZone` stop at ±18:00).
    public static let maxOffsetSeconds: Int32 = 18 * 3600
    /// The longest type identifier.
    public static let maxTypeBytes = 128

    /// The first problem of the type identifier, or `nil`.
    public static func typeProblem(_ type: SampleType) -> SampleProblem? {
        // Over the contiguous UTF-8 (not `utf8.allSatisfy`, whose iterator was 3.5% of the sink's ingest profile).
        var text = type.rawValue
        let valid = text.withUTF8 { utf8 in
            !utf8.isEmpty && utf8.count <= maxTypeBytes
                && utf8.allSatisfy { c in
                    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                        || c == UInt8(ascii: "_") || c == UInt8(ascii: ".")
                }
        }
        guard valid else {
            return SampleProblem(.invalidType, field: "type",
                                 detail: "\"\(InputExcerpt.of(type.rawValue))\" is not a type identifier such as HKQuantityTypeIdentifierStepCount")
        }
        return nil
    }

    /// The first problem of a sample's instants, or `nil`.
    @inline(__always)
    public static func instantsProblem(startMs: Int64, endMs: Int64) -> SampleProblem? {
        guard Instants.contains(startMs) else {
            return SampleProblem(.instantOutOfRange, field: "startDate", detail: "is outside \(Instants.description)")
        }
        guard Instants.contains(endMs) else {
            return SampleProblem(.instantOutOfRange, field: "endDate", detail: "is outside \(Instants.description)")
        }
        guard endMs >= startMs else { return SampleProblem(.endBeforeStart, field: "endDate", detail: "is before startDate") }
        return nil
    }

    /// The first problem of a value of `type` (of kind `kind`), or `nil`. `field` is how the caller's format names
    /// the value (`value`, or `count` on the HealthStepsSync wire).
    @inline(__always)
    public static func valueProblem(_ value: Double, type: SampleType, kind: SampleKind, field: String = "value")
        -> SampleProblem?
    {
        guard value.isFinite else { return SampleProblem(.valueNotFinite, field: field, detail: "is not a finite number") }
        switch kind {
        case .cumulative:
            guard value >= 0 else {
                return SampleProblem(.negativeValue, field: field, detail: "\(value) is negative for a cumulative type")
            }
            if type == .stepCount, value > maxStepCount {
                return SampleProblem(.valueOutOfRange, field: field, detail: "\(value) is over the limit of 1000000 steps")
            }
        case .category:
            guard value >= 0, value <= maxCategoryCode, value == value.rounded() else {
                return SampleProblem(.valueOutOfRange, field: field,
                                     detail: "\(value) is not a category code (a whole number in 0…1000000)")
            }
        case .series:
            guard value >= 1, value == value.rounded() else {
                return SampleProblem(.valueOutOfRange, field: field,
                                     detail: "\(value) is not the point count of a series part (a whole number ≥ 1)")
            }
        case .discrete, .workout:
            break
        }
        return nil
    }

    /// The problem of a text field longer than ``maxFieldBytes`` or holding U+0000, or `nil`.
    @inline(__always)
    public static func fieldProblem(_ value: String?, field: String) -> SampleProblem? {
        guard let value else { return nil }
        let count = value.utf8.count
        if count > maxFieldBytes {
            return SampleProblem(.fieldTooLong, field: field,
                                 detail: "is \(count) bytes long, over the limit of \(maxFieldBytes)")
        }
        // Over the contiguous UTF-8 where there is one (native strings): a byte loop, no iterator.
        let nul = value.utf8.withContiguousStorageIfAvailable { $0.firstIndex(of: 0) } ?? value.utf8.firstIndex(of: 0)
            .map { value.utf8.distance(from: value.utf8.startIndex, to: $0) }
        if let nul {
            return SampleProblem(.nulCharacter, field: field,
                                 detail: "holds U+0000 (NUL) at byte \(nul), which no text field may hold")
        }
        return nil
    }

    /// The problem of a `details` object of `byteCount` bytes, or `nil`.
    @inline(__always)
    public static func detailsProblem(byteCount: Int) -> SampleProblem? {
        guard byteCount > maxDetailsBytes else { return nil }
        return SampleProblem(.fieldTooLong, field: "details",
                             detail: "is \(byteCount) bytes long, over the limit of \(maxDetailsBytes)")
    }

    /// The problem of a UTC offset beyond ±18 hours, or `nil`.
    @inline(__always)
    public static func offsetProblem(_ seconds: Int32?) -> SampleProblem? {
        guard let seconds, abs(Int(seconds)) > Int(maxOffsetSeconds) else { return nil }
        return SampleProblem(.invalidOffset, field: "utcOffset", detail: "\(seconds) s is beyond ±18 hours")
    }

    /// The first problem of `sample`, or `nil` when it may be stored and sent. `kind` defaults to the type's.
    ///
    /// `typeChecked`: the caller has already found ``typeProblem(_:)`` `nil` for this very type (the store's
    /// inserter checks each type once per transaction), so the per-byte scan of the identifier is not repeated.
    public static func problem(of sample: HealthSample, kind: SampleKind? = nil, typeChecked: Bool = false)
        -> SampleProblem?
    {
        if !typeChecked, let problem = typeProblem(sample.type) { return problem }
        if let problem = instantsProblem(startMs: sample.startMs, endMs: sample.endMs) { return problem }
        if let problem = valueProblem(sample.value, type: sample.type, kind: kind ?? sample.type.kind) { return problem }
        if let problem = offsetProblem(sample.utcOffsetSeconds) { return problem }
        if let problem = fieldProblem(sample.unit, field: "unit") { return problem }
        if let problem = fieldProblem(sample.sourceName, field: "sourceName") { return problem }
        if let problem = fieldProblem(sample.sourceBundleId, field: "sourceBundleId") { return problem }
        if let problem = fieldProblem(sample.sourceVersion, field: "sourceVersion") { return problem }
        if let problem = fieldProblem(sample.deviceName, field: "sourceDeviceName") { return problem }
        if let problem = fieldProblem(sample.deviceModel, field: "deviceModel") { return problem }
        if let details = sample.details, let problem = detailsProblem(byteCount: details.utf8.count) { return problem }
        return nil
    }
}

extension HealthSample {
    /// The first reason this sample may not be stored or sent (``SampleValidation``), or `nil`.
    public var validationProblem: SampleProblem? { SampleValidation.problem(of: self) }
}
