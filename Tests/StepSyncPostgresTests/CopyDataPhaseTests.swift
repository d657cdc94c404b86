import Logging
import PostgresNIO
@testable import StepSyncPostgres
import StepSyncTestSupport
import Testing

/// A database deadline that passes during a COPY's data phase closes the connection only once the phase ends:
/// PostgresNIO 1.33.2 stops the process on a close there ("Invalid query state machine action in state: .closing,
/// action: wait"; the sink crashed so on a loaded machine when a POST's COPY outlived its deadline).
@Suite("a close asked during a COPY's data phase waits for the phase to end",
       .enabled(if: PostgresHarness.shouldRun, "PostgreSQL server binaries not installed"))
struct CopyDataPhaseTests {
    @Test("a close asked while the COPY's rows are written happens after they are, and the process lives; outside a COPY it is at once")
    func deferredClose() async throws {
        try await PostgresHarness.withDatabase { url in
            let client = PostgresClient(configuration: try DatabaseURL(url).clientConfiguration(maximumConnections: 2))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                // Inside a COPY's data phase: the close is put off, and the rows already written still reach the
                // database's COPY; once the phase ends the connection closes.
                var copied: PostgresConnection?
                do {
                    copied = try await client.withConnection { connection in
                        _ = try await connection.query("CREATE TEMP TABLE t (n int)", logger: quietLogger)
                        try await connection.guardedCopyFrom(table: "t", logger: quietLogger) { writer in
                            try await writer.write(ByteBuffer(string: "1\n2\n"))
                            CopyDataPhase.close(connection)
                            #expect(!connection.isClosed, "closed inside the data phase")
                            try await Task.sleep(for: .milliseconds(200))
                            #expect(!connection.isClosed, "closed inside the data phase")
                            try await writer.write(ByteBuffer(string: "3\n"))
                        }
                        return connection
                    }
                } catch {
                    Issue.record("the COPY failed: \(String(reflecting: error))")
                }
                // The COPY wrote its rows (the close came after CopyDone) and the connection then closed; this
                // process is still here to say so, and the pool serves a fresh connection.
                let connection = try #require(copied)
                try await connection.closeFuture.get()
                #expect(connection.isClosed)
                let fresh = try await client.withConnection { fresh in
                    let rows = try await fresh.query("SELECT 41 + 1", logger: quietLogger)
                    var answer = 0
                    for try await value in rows.decode(Int.self) { answer = value }
                    return answer
                }
                #expect(fresh == 42)
                // Outside a COPY: at once.
                try await client.withConnection { connection in
                    CopyDataPhase.close(connection)
                    try await connection.closeFuture.get()
                    #expect(connection.isClosed)
                }
            }
        }
    }
}
