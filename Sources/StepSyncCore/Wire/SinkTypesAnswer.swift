/// The sink's answer to `GET /samples/types`: the types the client holds there and their sample counts,
/// `{"types":{"HKQuantityTypeIdentifierHeartRate":120,"HKQuantityTypeIdentifierStepCount":5000}}` (types in
/// ascending order; `{"types":{}}` for none).
///
/// `stepsync reset --sink` reads it to delete type by type.
public struct SinkTypesAnswer: SinkAnswer, Hashable {
    /// The sample count of each type, by its identifier.
    public var types: [String: Int]

    public static var answerName: String { "the list of stored types" }

    /// Creates the answer from a storage's counts.
    public init(counts: [SampleType: Int]) {
        types = Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) })
    }

    /// The counts by type.
    public var counts: [SampleType: Int] {
        Dictionary(uniqueKeysWithValues: types.map { (SampleType($0.key), $0.value) })
    }
}
