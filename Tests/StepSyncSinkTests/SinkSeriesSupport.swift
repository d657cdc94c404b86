import Foundation
import StepSyncPostgres
import StepSyncSink
import StepSyncTestSupport

/// ``withSink(_:directory:token:configure:_:)`` that also hands `body` the storage and the identity the client's
/// token stands for, so a test can call the storage's methods beside the HTTP ones (its contract, on every backend).
func withStorageSink<T: Sendable>(
    _ backend: SinkBackend, directory: String,
    _ body: @Sendable (SinkTestClient, any SampleStorage, ClientIdentity) async throws -> T
) async throws -> T {
    let configuration = SinkConfiguration(port: 0, dataPath: directory + "/sink/steps.jsonl", token: nil, time: .system)
    let (storage, authenticator, token) = try await backend.makeStorage(directory: directory,
                                                                         configuration: configuration)
    return try await SinkServer.withRunningSink(configuration: configuration, storage: storage,
                                                authenticator: authenticator, logger: quietLogger) { port in
        guard let identity = try await authenticator.client(authorization: token.map { "Bearer \($0)" }) else {
            throw TestFailure("the backend's token is not one of its clients")
        }
        return try await body(SinkTestClient(port: port, token: token), storage, identity)
    }
}

/// Adds a client named `name` to the PostgreSQL database of a sink test's `directory` (``SinkBackend/postgres``);
/// returns its token.
func addPostgresClient(directory: String, name: String) async throws -> String {
    guard let data = FileManager.default.contents(atPath: directory + "/postgres-backend.json"),
          let saved = try JSONSerialization.jsonObject(with: data) as? [String: String], let url = saved["url"] else {
        throw TestFailure("no PostgreSQL database recorded in \(directory)")
    }
    let token = ClientToken.random()
    let configuration = PostgresSampleStorage.Configuration(url: try DatabaseURL(url), maximumConnections: 1,
                                                            leaseTimeout: PostgresHarness.patientLeaseTimeout, time: .system)
    _ = try await PostgresSampleStorage.withStorage(configuration: configuration, logger: quietLogger) {
        try await $0.addClient(name: name, token: token)
    }
    return token.text
}
