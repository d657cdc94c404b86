import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync delete`: a user deleting data. Deleted samples leave tombstones that the next sync sends.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete step samples from the store, by uuid or by time range; the next sync deletes them from the sink.",
            discussion: """
                Each deleted sample leaves a tombstone (uuid, type, change sequence), as HealthKit's deleted objects \
                do; `stepsync layer` turns them into deletion work and `stepsync sync` sends it (POST /steps/delete).
                Examples:
                  stepsync delete --uuid D67311EE-FACB-41AA-B202-8D266F3EDE18 --yes
                  stepsync delete --from 2025-05-11T00:00:00.000Z --to 2025-05-12T00:00:00.000Z --yes
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Option(name: .customLong("uuid"), parsing: .upToNextOption, help: "Uuids of samples to delete.")
        var uuids: [String] = []

        @Option(help: "Delete step samples starting at or after this ISO-8601 instant (with --to).")
        var from: String?

        @Option(help: "Delete step samples starting before this ISO-8601 instant (with --from).")
        var to: String?

        @Flag(help: "Do not ask for confirmation.")
        var yes = false

        @Flag(help: "Print one JSON object instead of a sentence.")
        var json = false

        func validate() throws {
            let byRange = from != nil || to != nil
            guard byRange || !uuids.isEmpty else {
                throw ValidationError("Name what to delete: --uuid U… or --from T --to T.")
            }
            guard !(byRange && !uuids.isEmpty) else {
                throw ValidationError("Use either --uuid or --from/--to, not both.")
            }
            for uuid in uuids where UUID(uuidString: uuid) == nil {
                throw ValidationError("--uuid \(uuid) is not a uuid (expected e.g. D67311EE-FACB-41AA-B202-8D266F3EDE18).")
            }
            if byRange {
                guard let from, let to else { throw ValidationError("--from and --to go together.") }
                guard let a = ISO8601Millis.parse(from) else {
                    throw ValidationError("--from \(from) is not an ISO-8601 instant (e.g. 2025-05-11T16:27:22.000Z).")
                }
                guard let b = ISO8601Millis.parse(to) else {
                    throw ValidationError("--to \(to) is not an ISO-8601 instant (e.g. 2025-05-11T16:27:22.000Z).")
                }
                guard a < b else { throw ValidationError("--from \(from) must be before --to \(to).") }
            }
        }

        func run() async throws {
            let store = try data.openStore()
            let what: String
            if let from, let to {
                what = "every step sample starting in [\(from), \(to))"
            } else {
                what = "\(uuids.count) sample\(uuids.count == 1 ? "" : "s") by uuid"
            }
            guard try Confirmation.confirm("Delete \(what) from \(store.path)?", assumeYes: yes) else {
                throw CleanExit.message("Nothing deleted.")
            }
            let summary: DeleteSummary
            if let from, let to, let a = ISO8601Millis.parse(from), let b = ISO8601Millis.parse(to) {
                summary = try store.deleteSamples(of: .stepCount, in: TimeRange(start: a, end: b))
            } else {
                summary = try store.deleteSamples(uuids: uuids.compactMap(UUID.init(uuidString:)))
            }
            if json {
                try JSONOutput.print(["samples": summary.deleted, "deleted": summary.deleted,
                                      "steps": Int64(summary.deletedValue.rounded()), "missing": summary.missing])
            } else {
                print("Deleted \(Format.number(summary.deleted)) samples (\(Format.number(summary.deletedValue)) steps)"
                      + (summary.missing > 0 ? "; \(summary.missing) uuid(s) were not in the store." : ".")
                      + " Run `stepsync layer` and `stepsync sync` to delete them from the sink.")
            }
        }
    }
}
