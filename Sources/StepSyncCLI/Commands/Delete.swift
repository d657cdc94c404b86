import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync delete`: a user deleting data. Deleted samples leave tombstones that the next sync sends.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete samples from the store, by uuid or by time range; the next sync deletes them from the sink.",
            discussion: """
                Each deleted sample leaves a tombstone (uuid, type, change sequence), as HealthKit's deleted objects \
                do; `stepsync layer` turns them into deletion work and `stepsync sync` sends it. --uuid deletes \
                samples of any type. A time range deletes step samples unless --type names other types (repeatable) \
                or --all-types is given: deleting less by default is the safer mistake. --from and --to are each a \
                date (YYYY-MM-DD: a local day in --tz, --to including its whole day, as `export` and `stats --daily` \
                read days) or an ISO-8601 UTC instant (--to exclusive); the question before deleting names the \
                range in --tz. A deletion stays deleted: importing an export that still holds the sample again \
                leaves it out (`import --restore-deleted` brings it back).
                Examples:
                  stepsync delete --uuid D67311EE-FACB-41AA-B202-8D266F3EDE18 --yes
                  stepsync delete --from 2025-05-11 --to 2025-05-11 --yes
                  stepsync delete --from 2025-05-11 --to 2025-05-11 --tz Europe/Paris --yes
                  stepsync delete --from 2025-05-11 --to 2025-05-12 --type HeartRate --yes
                  stepsync delete --from 2025-05-11T16:00:00.000Z --to 2025-05-12 --all-types
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Option(name: .customLong("uuid"), parsing: .upToNextOption, help: "Uuids of samples to delete.")
        var uuids: [String] = []

        @OptionGroup var starts: StartRangeOptions

        @Option(name: .customLong("type"),
                help: ArgumentHelp("With --from/--to: delete samples of this type (e.g. HeartRate) instead of step counts; repeatable.",
                                   valueName: "type"))
        var types: [String] = []

        @Flag(help: "With --from/--to: delete samples of every type.")
        var allTypes = false

        @Flag(help: "Do not ask for confirmation.")
        var yes = false

        @Flag(help: "Print one JSON object instead of a sentence.")
        var json = false

        func validate() throws {
            let byRange = starts.isGiven
            guard byRange || !uuids.isEmpty else {
                throw ValidationError("Name what to delete: --uuid U… or --from T --to T.")
            }
            guard !(byRange && !uuids.isEmpty) else {
                throw ValidationError("Use either --uuid or --from/--to, not both.")
            }
            guard byRange || (types.isEmpty && !allTypes) else {
                throw ValidationError("--type and --all-types go with --from/--to; --uuid deletes samples of any type.")
            }
            guard !(allTypes && !types.isEmpty) else {
                throw ValidationError("Use either --type or --all-types, not both.")
            }
            for uuid in uuids where UUID(uuidString: uuid) == nil {
                throw ValidationError("--uuid \(uuid) is not a uuid (expected e.g. D67311EE-FACB-41AA-B202-8D266F3EDE18).")
            }
            if byRange {
                guard let from = starts.from, let to = starts.to else {
                    throw ValidationError("--from and --to go together.")
                }
                guard let range = try starts.range(), range.start < range.end else {
                    throw ValidationError("--from \(from) must be before --to \(to).")
                }
            }
        }

        func run() async throws {
            let store = try data.openStore()
            let selected: Set<SampleType>? = allTypes ? nil
                : try SampleTypeArgument.resolve(types, among: try store.sampleTypes()) ?? [.stepCount]
            let what: String
            let range = try starts.range()
            if let range {
                let names = selected.map { $0.map(\.shortName).sorted().joined(separator: ", ") } ?? "every type"
                what = "every sample (\(names)) starting in \(try starts.zone().range(range))"
            } else {
                what = "\(uuids.count) sample\(uuids.count == 1 ? "" : "s") by uuid"
            }
            guard try Confirmation.confirm("Delete \(what) from \(store.path)?", assumeYes: yes) else {
                throw CleanExit.message("Nothing deleted.")
            }
            let summary: DeleteSummary
            if let range {
                summary = try store.deleteSamples(of: selected, in: range)
            } else {
                summary = try store.deleteSamples(uuids: uuids.compactMap(UUID.init(uuidString:)))
            }
            if json {
                try JSONOutput.print(JSONReport(
                    samples: summary.deleted, steps: Int64(summary.deletedSteps.rounded()), missing: summary.missing,
                    types: Dictionary(uniqueKeysWithValues: summary.deletedByType.map { ($0.key.rawValue, $0.value) })))
            } else {
                let byType = summary.deletedByType.sorted { $0.key < $1.key }
                    .map { "\(Format.number($0.value)) \($0.key.shortName)" }.joined(separator: ", ")
                print("Deleted \(Format.number(summary.deleted)) samples"
                      + (byType.isEmpty ? "" : " (\(byType)")
                      + (summary.deletedSteps > 0 ? "; \(Format.number(summary.deletedSteps)) steps)" : byType.isEmpty ? "" : ")")
                      + (summary.missing > 0 ? "; \(summary.missing) uuid(s) were not in the store." : ".")
                      + " Run `stepsync layer` and `stepsync sync` to delete them from the sink.")
            }
        }

        /// `delete --json` (`docs/json/delete.schema.json`): the samples deleted, their steps, the uuids that were
        /// not in the store, and the samples deleted by type.
        struct JSONReport: Encodable {
            var samples: Int
            var steps: Int64
            var missing: Int
            var types: [String: Int]
        }
    }
}
