import Foundation
import StepSyncCore
import StepSyncTestSupport
import Testing

/// `GET /export` on PostgreSQL gives each client its own samples only.
@Suite("GET /export on PostgreSQL: a tenant's own samples only",
       .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
struct ExportTenantTests {
    @Test("anna and ben each export exactly the step samples they posted, in start order; a stranger gets 401")
    func ownSamplesOnly() async throws {
        try await PostgresHarness.withDatabase { url in
            let tokens = try await addClients(["anna", "ben"], url: url)
            try await withPostgresSink(url: url) { port async throws in
                let anna = SinkCaller(port: port, token: tokens["anna"])
                let ben = SinkCaller(port: port, token: tokens["ben"])
                let annas = stepSamples(30)
                let bens = stepSamples(20, first: 1_000)
                #expect(try await anna.post(annas).status == 200)
                #expect(try await ben.post(bens).status == 200)
                let annaCSV = try await anna.send(.GET, "/export?type=StepCount&format=csv")
                #expect(annaCSV.status == 200)
                // The wire carries no UTC offset, so the sink has none to export.
                let expected = annas.sorted { ($0.startMs, $0.uuid.uuidString) < ($1.startMs, $1.uuid.uuidString) }
                    .map { sample in var sample = sample; sample.utcOffsetSeconds = nil; return sample }
                #expect(annaCSV.text == String(decoding: ExportEncoder.header(.csv) + ExportEncoder.rows(expected, format: .csv),
                                               as: UTF8.self))
                let benNDJSON = try await ben.send(.GET, "/export?format=ndjson")
                let benUUIDs = Set(benNDJSON.text.split(separator: "\n").map { String($0.dropFirst(9).prefix(36)) })
                #expect(benUUIDs == Set(bens.map(\.uuid.uuidString)))
                #expect(try await SinkCaller(port: port, token: nil).send(.GET, "/export").status == 401)
            }
        }
    }
}
