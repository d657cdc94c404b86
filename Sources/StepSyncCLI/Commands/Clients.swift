import ArgumentParser
import Foundation
import StepSyncCore
import StepSyncPostgres

extension StepSyncCommand {
    /// `stepsync clients`: the clients of a PostgreSQL sink (`serve --database`), each with its own bearer token.
    struct Clients: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Manage the clients of a PostgreSQL sink: add (prints a token once), list, revoke.",
            discussion: """
                A sink serving from PostgreSQL (stepsync serve --database URL) answers only requests carrying a \
                client's token (Authorization: Bearer …), and each client sees only its own samples. The database \
                keeps the SHA-256 of each token, never the token.
                Examples:
                  stepsync clients add anna --database postgresql://stepsync@db/stepsync
                  stepsync clients list --database postgresql://stepsync@db/stepsync --json
                  stepsync clients revoke anna --database postgresql://stepsync@db/stepsync
                """,
            subcommands: [Add.self, List.self, Revoke.self])
    }
}

extension StepSyncCommand.Clients {
    /// `stepsync clients add NAME`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a client and print its bearer token (the last line of stdout; shown only this once).",
            discussion: """
                The token is the last line of stdout; the client passes it to sync as --token (or \
                STEPSYNC_TOKEN).
                Example:
                  stepsync clients add anna --database postgresql://stepsync@db/stepsync
                """)

        @OptionGroup var client: ClientNameOptions

        func run() async throws {
            let name = client.name
            let token = ClientToken.random()
            let client = try await client.database.withStorage { try await $0.addClient(name: name, token: token) }
            FileHandle.standardError.write(Data("""
                Client \(client.name) added. Its bearer token follows; it is shown only this once (the database keeps \
                only its SHA-256). Give it to the client: stepsync sync --token TOKEN (or STEPSYNC_TOKEN).

                """.utf8))
            print(token.text)
        }
    }

    /// `stepsync clients list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the clients: name, status, created, last seen, samples stored.",
            discussion: """
                Last seen is updated at most once a minute. Revoked clients are listed with their samples (which stay).
                Times are shown in --tz (default STEPSYNC_TZ, else the system's zone); --json gives UTC instants.
                Examples:
                  stepsync clients list --database postgresql://stepsync@db/stepsync --json
                  STEPSYNC_DATABASE_URL=postgresql://db/x stepsync clients list --tz UTC
                """)

        @OptionGroup var database: DatabaseOptions

        @Flag(help: "Print one JSON object instead of a table (instants in ISO-8601 UTC).")
        var json = false

        @OptionGroup var zone: TimeZoneOptions

        func validate() throws { _ = try database.url() }

        func run() async throws {
            let zone = try self.zone.displayTimeZone()
            let clients = try await database.withStorage { try await $0.listClients() }
            if json {
                try JSONOutput.print(ClientsReport(clients: clients.map(ClientReport.init)))
                return
            }
            if clients.isEmpty {
                print("No clients yet. Add one with `stepsync clients add NAME --database URL`.")
                return
            }
            let rows = clients.map { client in
                [client.name, client.revokedMs == nil ? "active" : "revoked",
                 zone.dateTime(client.createdMs), client.lastSeenMs.map(zone.dateTime) ?? "never",
                 Format.number(client.sampleCount)]
            }
            print(Format.table(header: ["name", "status", "created (\(zone.name))", "last seen (\(zone.name))", "samples"],
                               rows: rows))
        }

    /// `clients list --json` (`docs/json/clients-list.schema.json`).
    struct ClientsReport: Encodable {
        var clients: [ClientReport]
    }

    /// One client in `clients list --json`: `lastSeen` and `revoked` are `null` until it was seen or revoked.
    struct ClientReport: Encodable {
        var name: String
        var id: Int64
        var created: String
        var samples: Int
        var types: [String: Int]
        var status: String
        var lastSeen: JSONNullable<String>
        var revoked: JSONNullable<String>

        init(_ client: ClientRecord) {
            name = client.name
            id = client.id
            created = ISO8601Millis.format(client.createdMs)
            samples = client.sampleCount
            types = client.samplesByType
            status = client.revokedMs == nil ? "active" : "revoked"
            lastSeen = JSONNullable(client.lastSeenMs.map(ISO8601Millis.format))
            revoked = JSONNullable(client.revokedMs.map(ISO8601Millis.format))
        }
    }
    }

    /// `stepsync clients revoke NAME`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a client: its token is refused (401) by every sink within a second. Its samples stay.",
            discussion: """
                Example:
                  stepsync clients revoke anna --database postgresql://stepsync@db/stepsync
                """)

        @OptionGroup var client: ClientNameOptions

        func run() async throws {
            let name = client.name
            try await client.database.withStorage { try await $0.revokeClient(name: name) }
            print("Client \(name) revoked: its token is refused from now on (within a second on running sinks).")
        }
    }
}
