import Foundation
import StepSyncCore

extension SampleStorage {
    /// The most uuids looked up at once while replacing.
    static var replaceLookupChunk: Int { 10_000 }

    /// ``SampleStorage/insertReplacing(_:for:)`` from the storage's own ``samples(_:type:for:)``,
    /// ``delete(_:type:for:)`` and ``insert(_:for:)``: the stored samples of the same uuid and type whose value, end
    /// or unit differs are deleted (durably), then every sample is inserted. A crash between the two leaves the
    /// changed samples absent, not doubled; the client's retry inserts them, so the retry ends exact. Within
    /// `samples`, the last sample of a uuid is the one kept.
    public func insertReplacing(_ samples: [HealthSample], for client: ClientIdentity) async throws -> ReplaceOutcome {
        var last: [UUID: Int] = [:]
        last.reserveCapacity(samples.count)
        for (i, sample) in samples.enumerated() { last[sample.uuid] = i }
        var unique: [HealthSample] = []
        var byType: [SampleType: [Int]] = [:]
        if last.count == samples.count {
            // No uuid repeats (the usual body): the samples as they are, not copied one by one.
            unique = samples
            var run = 0
            while run < samples.count {
                let type = samples[run].type
                var end = run + 1
                while end < samples.count, samples[end].type == type { end += 1 }
                byType[type, default: []].append(contentsOf: run..<end)
                run = end
            }
        } else {
            unique.reserveCapacity(last.count)
            for (i, sample) in samples.enumerated() where last[sample.uuid] == i {
                byType[sample.type, default: []].append(unique.count)
                unique.append(sample)
            }
        }
        var replaced = 0
        for (type, indices) in byType.sorted(by: { $0.key < $1.key }) {
            var stale: [UUID] = []
            for start in stride(from: 0, to: indices.count, by: Self.replaceLookupChunk) {
                let chunk = indices[start..<min(indices.count, start + Self.replaceLookupChunk)]
                var wanted: [UUID: Int] = [:]
                for i in chunk { wanted[unique[i].uuid] = i }
                for old in try await self.samples(chunk.map { unique[$0].uuid }, type: type, for: client) {
                    guard let i = wanted[old.uuid] else { continue }
                    let new = unique[i]
                    if old.value != new.value || old.endMs != new.endMs || old.unit != new.unit { stale.append(old.uuid) }
                }
            }
            if !stale.isEmpty { replaced += try await delete(stale, type: type, for: client).deleted }
        }
        let outcome = try await insert(unique, for: client)
        let replacedNow = min(replaced, outcome.inserted)
        // `outcome.inserted + outcome.duplicates` is `unique.count`; the repeats within the call are duplicates too.
        return ReplaceOutcome(given: samples.count, inserted: outcome.inserted - replacedNow, replaced: replacedNow)
    }
}
