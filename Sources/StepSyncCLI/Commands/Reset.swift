import ArgumentParser
import Foundation
import Logging
import StepSyncCore
import StepSyncEngine
import StepSyncStore

extension StepSyncCommand {
    /// `stepsync reset`: forget the interval ledger (and, with `--remote`, empty the sink).
    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the interval ledger (and with --remote, every sample of every type the sink holds for you).",
            discussion: """
                The samples stay in the store; run `stepsync layer` to plan intervals again (it also plans again \
                every deletion the sink has not acknowledged, so samples deleted since they were synced are deleted \
                at the sink too). With --remote the ledger is cleared first, then the sink is emptied of every type it \
                holds for this client (on a PostgreSQL sink, only this token's samples), saying how many samples of \
                each type it deleted: if emptying \
                fails, the ledger claims nothing and the next layer + sync sends everything again (the sink \
                de-duplicates); run `reset --remote` again to empty it. Without --server, --remote empties the \
                sink this store last synced to (`stepsync status` names it) and refuses when no sync ran yet. Asks \
                first unless --yes; without a terminal on stdin, --yes is required.
                Examples:
                  stepsync reset --yes
                  stepsync reset --remote --yes
                  stepsync reset --remote --server http://127.0.0.1:8000 --yes
                """)

        @OptionGroup var data: DataDirectoryOptions

        @Flag(help: "Also empty the sink of every type it holds (GET <server>/samples/types, then DELETE <server>/samples?type=T for each).")
        var remote = false

        @Option(help: ArgumentHelp("The sink's base URL (with --remote; default: the sink this store last synced to).",
                                   valueName: "url"))
        var server: String?

        @OptionGroup var tls: ServerTLSOptions

        @Option(parsing: .unconditional,
                help: ArgumentHelp("A bearer token for the sink (default STEPSYNC_TOKEN).", valueName: "token"))
        var token: String?

        @Flag(help: "Do not ask for confirmation.")
        var yes = false

        func validate() throws {
            if remote, let server {
                do { try HTTPUploader.validateServerURL(server) } catch { throw ValidationError(error.description) }
            }
        }

        func run() async throws {
            if remote { try tls.checkFile() }
            let directory = data.dataDirectory
            let store = try StepStore(dataDirectory: directory)
            var server = self.server ?? ""
            if remote, self.server == nil {
                guard let last = try store.lastSyncTarget()?.server else {
                    FileHandle.standardError.write(Data(("stepsync reset: no sync has run on this store, so it knows no "
                        + "sink to empty: give --server URL.\nNothing was deleted.\n").utf8))
                    throw ExitCode.failure
                }
                server = last
            }
            let what = remote ? "the interval ledger of \(store.path) and everything the sink at \(server) holds"
                : "the interval ledger of \(store.path)"
            let count = try store.ledgerSummary().overall.intervals
            guard try Confirmation.confirm("Delete \(count) intervals: \(what)?", assumeYes: yes) else {
                print("Nothing deleted.")
                return
            }
            let token = EnvironmentValue.or(token, "STEPSYNC_TOKEN")
            if remote, let warning = CleartextToken.warning(server: server, token: token) {
                FileHandle.standardError.write(Data((warning + "\n").utf8))
            }
            let logger = PlainLogHandler.logger("stepsync.reset")
            let remote = remote
            let sink = server
            let caCertificateFile = tls.caCertificateFile
            try await SyncLock.withLock(path: directory.syncLockPath) {
                // The ledger first: whatever happens next, it never claims what the sink no longer holds.
                let deleted = try store.deleteIntervals()
                print("deleted \(deleted) intervals from the ledger")
                guard remote else { return }
                do {
                    let deleted = try await HTTPUploader.withUploader(
                        server: sink, token: token, caCertificateFile: caCertificateFile, time: .system, logger: logger
                    ) {
                        try await $0.emptySink()
                    }
                    var total = 0
                    var types = 0
                    for entry in deleted {
                        total += entry.deleted
                        if entry.type != nil { types += 1 }
                    }
                    print("sink emptied: deleted \(Format.number(total)) samples of \(types) type\(types == 1 ? "" : "s")")
                    for entry in deleted {
                        let name: String = entry.type?.shortName ?? "(types that arrived meanwhile)"
                        let count: String = Format.number(entry.deleted)
                        print("  \(name): \(count)")
                    }
                } catch {
                    let reason = await HTTPUploader.explainWithCertificateDates(error, server: sink, time: .system)
                    FileHandle.standardError.write(Data("""
                        stepsync reset: the ledger is cleared, but the sink at \(sink) may still hold samples: \(reason)
                        Run `stepsync reset --remote` again to empty it (or `stepsync layer` and `stepsync sync` to send \
                        everything again; the sink de-duplicates).\n
                        """.utf8))
                    throw ExitCode.failure
                }
            }
        }
    }
}
