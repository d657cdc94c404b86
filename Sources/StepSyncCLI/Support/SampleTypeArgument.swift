import ArgumentParser
import Foundation
import StepSyncCore

/// Reads `--type` values: a HealthKit identifier (`HKQuantityTypeIdentifierHeartRate`), its short name
/// (`HeartRate`, `SleepAnalysis`, `Workout`) or the name `generate --types` knows it by (`steps`, `heart-rate`,
/// `workouts`), case-insensitive, resolved against the types the store holds. A type the store does not hold is no
/// error here: the command then says it has no samples of it.
enum SampleTypeArgument {
    /// The type `text` names among `known` (the store's types), or a full HealthKit identifier the store does not
    /// hold yet.
    ///
    /// - Throws: `ValidationError` naming the known types when `text` names none of them and is no identifier.
    static func resolve(_ text: String, among known: [SampleType], option: String = "--type") throws -> SampleType {
        let wanted = text.lowercased()
        if let match = known.first(where: { $0.rawValue.lowercased() == wanted || $0.shortName.lowercased() == wanted }) {
            return match
        }
        if let generated = GeneratedType(name: text) { return generated.sampleType }
        if wanted == "workout" { return .workout }
        if text.hasPrefix("HK"), SampleValidation.typeProblem(SampleType(text)) == nil { return SampleType(text) }
        // The short name of a cumulative quantity type the store does not hold yet (StepCount on an empty store).
        let quantity = SampleType("HKQuantityTypeIdentifier" + text)
        if quantity.kind == .cumulative { return quantity }
        let names = known.map(\.shortName).sorted().prefix(20).joined(separator: ", ")
        throw ValidationError("\(option) \(String(text.prefix(64))) is not a type the store holds"
                              + (known.isEmpty ? " (the store is empty)." : " (it holds: \(names)).")
                              + " Give a short name such as steps, HeartRate or StepCount, or a HealthKit identifier.")
    }

    /// Resolves every value of a repeatable `--type` option; `nil` when none was given (every type).
    static func resolve(_ texts: [String], among known: [SampleType]) throws -> Set<SampleType>? {
        texts.isEmpty ? nil : Set(try texts.map { try resolve($0, among: known) })
    }

    /// Says on stderr which of `selected` the store holds no samples of (`layer --type HeartRate` on a steps-only
    /// store): not an error, the command goes on with what there is.
    static func noteMissing(_ selected: Set<SampleType>?, among known: [SampleType]) {
        guard let selected else { return }
        let missing = selected.subtracting(known).map(\.shortName).sorted()
        guard !missing.isEmpty else { return }
        FileHandle.standardError.write(Data("stepsync: the store holds no samples of \(missing.joined(separator: ", ")).\n".utf8))
    }
}
