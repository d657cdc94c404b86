import Foundation
import StepSyncPostgres
import StepSyncSink
import StepSyncTestSupport

extension SinkBackend {
    /// A PostgreSQL storage for a sink test: one database per test directory on the shared test server (a sink
    /// restarted on the same directory finds the same database and client), migrated, with one client whose token
    /// the test client sends.
    func makePostgresStorage(directory: String, configuration: SinkConfiguration) async throws
        -> (storage: any SampleStorage, authenticator: any SinkAuthenticator, token: String?)
    {
        let record = directory + "/postgres-backend.json"
        let url: String
        let token: String
        if let data = FileManager.default.contents(atPath: record),
           let saved = try JSONSerialization.jsonObject(with: data) as? [String: String],
           let savedURL = saved["url"], let savedToken = saved["token"] {
            (url, token) = (savedURL, savedToken)
        } else {
            url = try await PostgresHarness.sharedServer().createDatabase()
            let fresh = ClientToken.random()
            let storageConfiguration = PostgresSampleStorage.Configuration(
                url: try DatabaseURL(url), maximumConnections: 2, leaseTimeout: PostgresHarness.patientLeaseTimeout, time: .system)
            _ = try await PostgresSampleStorage.withStorage(configuration: storageConfiguration, logger: quietLogger) {
                try await $0.addClient(name: "sink-test", token: fresh)
            }
            token = fresh.text
            let data = try JSONSerialization.data(withJSONObject: ["url": url, "token": token])
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: record, contents: data) else {
                throw TestFailure("cannot write \(record)")
            }
        }
        let (storage, authenticator) = try await PostgresSink.prepare(
            configuration: .init(url: try DatabaseURL(url), leaseTimeout: PostgresHarness.patientLeaseTimeout,
                                 healthTimeout: PostgresHarness.patientLeaseTimeout,
                                 maxTypes: configuration.maxTypes, retryAfterSeconds: configuration.retryAfterSeconds,
                                 time: configuration.time),
            logger: quietLogger)
        return (storage, authenticator, token)
    }
}
