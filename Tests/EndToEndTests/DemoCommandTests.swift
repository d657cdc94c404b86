import Foundation
import StepSyncCore
import Testing
import StepSyncTestSupport

@Suite("stepsync demo")
struct DemoCommandTests {
    @Test("demo --types … generates, layers, serves, syncs and checks each type: the sink holds exactly the store's uuids (real binary)")
    func everyTypeExact() async throws {
        let asked: [GeneratedType] = [.sleep, .workouts, .heartRateVariability, .mindful, .flights]
        let (status, process) = try await StepSyncProcess.run(
            ["demo", "--years", "1", "--types", asked.map(\.rawValue).joined(separator: ","), "--json"])
        #expect(status == 0, "\(process.stderr)")
        let json = try process.json()
        #expect(json["exact"] as? Bool == true)
        let types = try #require(json["types"] as? [String: [String: Any]])
        #expect(Set(types.keys) == Set(asked.map(\.sampleType.rawValue)))
        var total = 0
        for (name, entry) in types {
            let samples = try #require(entry["samples"] as? Int)
            #expect(samples > 0, "\(name)")
            #expect(entry["sinkSamples"] as? Int == samples, "\(name)")
            #expect(entry["exact"] as? Bool == true, "\(name)")
            #expect((entry["intervals"] as? Int ?? 0) >= 1, "\(name)")
            #expect(entry["steps"] == nil)
            total += samples
        }
        #expect(json["samples"] as? Int == total)
        #expect(json["inserted"] as? Int == total)
        #expect(json["sinkSamples"] as? Int == total)
        #expect(json["failed"] as? Int == 0)
    }

    @Test("demo --profile seed syncs the steps through /steps and reports their sum per type (real binary)")
    func seedProfileSteps() async throws {
        let (status, process) = try await StepSyncProcess.run(["demo", "--years", "1", "--profile", "seed", "--json"])
        #expect(status == 0, "\(process.stderr)")
        let json = try process.json()
        let types = try #require(json["types"] as? [String: [String: Any]])
        let steps = try #require(types[SampleType.stepCount.rawValue])
        #expect(types.count == 1)
        #expect(steps["exact"] as? Bool == true)
        #expect((steps["samples"] as? Int ?? 0) > 1_000)
        #expect(steps["steps"] as? Int == json["steps"] as? Int)
        #expect((json["steps"] as? Int ?? 0) > 1_000_000)
        #expect((json["intervals"] as? Int ?? 0) >= (json["lowerBound"] as? Int ?? .max))
    }

    @Test("demo refuses a type the profile does not record, before doing anything")
    func refusesSeedProfileTypes() async throws {
        let (status, process) = try await StepSyncProcess.run(["demo", "--profile", "seed", "--types", "heart-rate"])
        #expect(status != 0)
        #expect(process.stderr.contains("--profile realistic"), "\(process.stderr)")
        #expect(!process.stdout.contains("stepsync demo in"))
    }
}
