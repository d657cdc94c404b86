import Foundation
import StepSyncCore

/// What ``WireDecoder/decodeStoredSample(_:type:kind:index:)`` promises for any line of the sink's file of any type
/// (what `JSONLStorage` reads back at start and for every page), as a check that returns the broken promises. The
/// first byte chooses the file's type (``types``); the rest is the line, without its newline. The promises:
/// 1. any line is safe; a refusal is short (``WireOracle/errorProblems(_:index:)``) and names the index given;
/// 2. an accepted sample is of the file's type and passes ``SampleValidation``, and its stored line reads back the
///    same (``WireOracle/storedLineProblems(_:)``);
/// 3. a line of another type than step counts reads the same inside a `POST /samples` body.
enum StoredLineOracle {
    /// The files' types: one of each kind, and the step counts' own shape.
    static let types: [SampleType] = [
        .stepCount, .heartRate, .distanceWalkingRunning, .sleepAnalysis, SampleType("HKWorkoutTypeIdentifier"),
        SampleType("HKQuantityTypeIdentifierHeartRateVariabilitySDNN"), SampleType("HKCategoryTypeIdentifierMindfulSession"),
        SampleType("HKQuantityTypeIdentifierBodyMass"),
    ]

    /// The promises `input` breaks.
    static func problems(_ input: UnsafeRawBufferPointer) -> [String] {
        let type = types[Int(input.first ?? 0) % types.count]
        let line = UnsafeRawBufferPointer(rebasing: input.dropFirst())
        let sample: HealthSample
        do {
            sample = try WireDecoder.decodeStoredSample(line, type: type, kind: type.kind, index: 7)
        } catch {
            return WireOracle.errorProblems(error, index: 7)
        }
        var problems: [String] = []
        if sample.type != type { problems.append("a line of \(sample.type.rawValue) read from the file of \(type.rawValue)") }
        if let problem = sample.validationProblem { problems.append("an invalid sample was read: \(problem)") }
        problems += WireOracle.storedLineProblems(sample)
        if type != .stepCount {
            let body = Array(#"{"samples":["#.utf8) + Array(line) + Array("]}".utf8)
            do {
                let samples = try WireDecoder.decodeSamplesRequest(body)
                if samples != [sample] { problems.append("inside a POST /samples body the line gives \(samples.count) other sample(s)") }
            } catch {
                problems.append("inside a POST /samples body the line is refused: \(error)")
            }
        }
        return problems
    }
}
