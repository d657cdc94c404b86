import Foundation

/// Decodes and validates wire request bodies and stored lines, all or nothing.
///
/// Bodies are parsed by a hand-written parser (`JSONDecoder` was ≈ 10× slower and would have capped ingest: see
/// `Planning/wire-format.md`), then every sample is checked in order by ``SampleValidation`` — the one validation
/// of the project. The first problem found rejects the whole request with a ``WireError`` naming it, its field and
/// the sample's index. Unknown fields are ignored, and `null` counts as absent for optional fields.
public enum WireDecoder {
    /// The samples of a `POST /steps` body, or the first problem in it.
    public static func decodeRequest(_ body: some ContiguousBytes) throws(WireError) -> [WireSample] {
        try decodeStepsRequest(body).map(WireSample.init)
    }

    /// The samples of a `POST /steps` body as step-count ``HealthSample``s (unit `count`, `sourceName` `""` unless
    /// the body carries them), or the first problem in it.
    public static func decodeStepsRequest(_ body: some ContiguousBytes) throws(WireError) -> [HealthSample] {
        try decode(body, .steps)
    }

    /// The samples of a `POST /samples` body (`{"samples":[{"uuid","type","startDate",…}]}`), or the first problem
    /// in it.
    public static func decodeSamplesRequest(_ body: some ContiguousBytes) throws(WireError) -> [HealthSample] {
        try decode(body, .samples)
    }

    /// ``decodeStepsRequest(_:)`` that also tells, per sample, whether its bytes are already the line the sink
    /// stores (``DecodedSamples``).
    public static func decodeStepsBody(_ body: some ContiguousBytes) throws(WireError) -> DecodedSamples {
        try decodeKeepingLines(body, .steps)
    }

    /// ``decodeSamplesRequest(_:)`` that also tells, per sample, whether its bytes are already the line the sink
    /// stores (``DecodedSamples``).
    public static func decodeSamplesBody(_ body: some ContiguousBytes) throws(WireError) -> DecodedSamples {
        try decodeKeepingLines(body, .samples)
    }

    /// One `POST /steps` object (a line of `steps.jsonl`, without its newline), validated; `index` names it in
    /// errors.
    public static func decodeSample(_ object: some ContiguousBytes, index: Int? = nil) throws(WireError) -> WireSample {
        WireSample(try decodeStoredSample(object, type: .stepCount, index: index))
    }

    /// One stored line (without its newline) of the sink's file for `type`, validated: a `POST /steps` object for
    /// step counts, else a `POST /samples` object whose `type` must be `type`.
    public static func decodeStoredSample(_ line: some ContiguousBytes, type: SampleType, index: Int? = nil)
        throws(WireError) -> HealthSample
    {
        try decodeStoredSample(line, type: type, kind: type.kind, index: index)
    }

    /// ``decodeStoredSample(_:type:index:)`` with the type's ``SampleKind`` known (a sink reading a whole file
    /// computes it once).
    public static func decodeStoredSample(_ line: some ContiguousBytes, type: SampleType, kind: SampleKind,
                                          index: Int? = nil) throws(WireError) -> HealthSample
    {
        let shape: WireShape = type == .stepCount ? .steps : .samples
        let result: Result<HealthSample, WireError> = line.withUnsafeBytes { raw in
            var parser = WireParser(raw)
            do throws(WireError) { return .success(try parser.parseSingleSample(shape, index: index)) } catch {
                return .failure(error)
            }
        }
        let sample = try result.get()
        guard sample.type == type else {
            throw .invalidSample(SampleProblem(.invalidType, field: "type",
                                               detail: "is \(InputExcerpt.of(sample.type.rawValue)), not \(type.rawValue)"),
                                 index: index)
        }
        try validate(sample, shape, kind: kind, index: index)
        return sample
    }

    private static func decode(_ body: some ContiguousBytes, _ shape: WireShape) throws(WireError) -> [HealthSample] {
        let result: Result<[HealthSample], WireError> = body.withUnsafeBytes { raw in
            var parser = WireParser(raw)
            do throws(WireError) { return .success(try parser.parseRequest(shape)) } catch { return .failure(error) }
        }
        let samples = try result.get()
        try validate(samples, shape)
        return samples
    }

    private static func decodeKeepingLines(_ body: some ContiguousBytes, _ shape: WireShape) throws(WireError)
        -> DecodedSamples
    {
        let result: Result<DecodedSamples, WireError> = body.withUnsafeBytes { raw in
            var parser = WireParser(raw)
            parser.recordsStoredLines = true
            do throws(WireError) {
                let samples = try parser.parseRequest(shape)
                return .success(DecodedSamples(samples: samples, storedLines: parser.storedLines))
            } catch {
                return .failure(error)
            }
        }
        let decoded = try result.get()
        try validate(decoded.samples, shape)
        return decoded
    }

    /// Every sample through ``SampleValidation``, in order; the first problem throws, naming the sample's index.
    private static func validate(_ samples: [HealthSample], _ shape: WireShape) throws(WireError) {
        var lastType = SampleType.stepCount
        var lastKind = SampleKind.cumulative
        for (index, sample) in samples.enumerated() {
            if sample.type != lastType {
                lastType = sample.type
                lastKind = sample.type.kind
            }
            try validate(sample, shape, kind: lastKind, index: index)
            // A series part's details are read and checked where they enter (not on every stored line read back:
            // the series readers re-check the parts they use).
            if lastKind == .series, let problem = SeriesValidation.problem(of: sample) {
                throw .invalidSample(problem, index: index)
            }
        }
    }

    /// ``SampleValidation`` on one parsed sample; on the `POST /steps` shape the value is called `count`.
    @inline(__always)
    private static func validate(_ sample: HealthSample, _ shape: WireShape, kind: SampleKind, index: Int?)
        throws(WireError)
    {
        guard var problem = SampleValidation.problem(of: sample, kind: kind) else { return }
        if shape == .steps, problem.field == "value" {
            problem = SampleProblem(problem.reason, field: "count", detail: problem.detail)
        }
        throw .invalidSample(problem, index: index)
    }
}
