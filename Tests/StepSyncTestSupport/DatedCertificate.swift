import Foundation

/// A self-signed certificate for 127.0.0.1 with the validity dates a test chooses, expired or not valid yet: made
/// with `openssl ca -selfsign -startdate -enddate` (OpenSSL 3.0's `req -x509` takes only `-days`, never a date in
/// the past).
public enum DatedCertificate {
    /// Writes `cert.pem` and `key.pem` into `directory`, valid from `start` to `end` (`YYYYMMDDHHMMSSZ`).
    public static func make(in directory: String, start: String, end: String) async throws -> TransportHarness.Certificate {
        let config = """
            [ ca ]
            default_ca = dated
            [ dated ]
            dir = \(directory)
            database = \(directory)/index.txt
            new_certs_dir = \(directory)
            serial = \(directory)/serial
            default_md = sha256
            policy = any
            copy_extensions = copy
            unique_subject = no
            [ any ]
            commonName = supplied

            """
        try config.write(toFile: directory + "/ca.cnf", atomically: true, encoding: .utf8)
        try "".write(toFile: directory + "/index.txt", atomically: true, encoding: .utf8)
        try "01\n".write(toFile: directory + "/serial", atomically: true, encoding: .utf8)
        let certificate = TransportHarness.Certificate(certificatePath: directory + "/cert.pem", keyPath: directory + "/key.pem")
        let request = try await TransportHarness.run("/usr/bin/env", [
            "openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", certificate.keyPath,
            "-out", directory + "/req.csr", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        guard request.status == 0 else { throw PostgresHarness.Failure("openssl req failed: \(request.output)") }
        let signed = try await TransportHarness.run("/usr/bin/env", [
            "openssl", "ca", "-batch", "-notext", "-config", directory + "/ca.cnf", "-selfsign",
            "-keyfile", certificate.keyPath, "-in", directory + "/req.csr", "-out", certificate.certificatePath,
            "-startdate", start, "-enddate", end,
        ])
        guard signed.status == 0 else { throw PostgresHarness.Failure("openssl ca failed: \(signed.output)") }
        return certificate
    }
}
