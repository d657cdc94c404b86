import ArgumentParser
import Foundation
import StepSyncEngine

/// `--cacert`, shared by the commands that talk to a sink at `--server` (`sync`, `reset --remote`).
struct ServerTLSOptions: ParsableArguments {
    /// A PEM file of certificates to trust for `https://` besides the system's roots.
    @Option(name: .customLong("cacert"), help: ArgumentHelp(
        "A PEM certificate to trust for an https:// server: a private CA's, or the sink's self-signed one.",
        discussion: "Defaults to STEPSYNC_CACERT; the system's roots are trusted either way.", valueName: "file"))
    var cacert: String?

    /// The file given with `--cacert`, else `STEPSYNC_CACERT` (empty: none).
    var caCertificateFile: String? {
        EnvironmentValue.or(cacert, "STEPSYNC_CACERT")
    }

    /// Refuses a file that holds no PEM certificate, naming it (exit 64). Called by `run()`, not `validate()`: the
    /// `--help` examples name a file that is not there.
    func checkFile() throws {
        guard let file = caCertificateFile else { return }
        do {
            _ = try HTTPUploader.loadCertificates(pemFile: file)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
