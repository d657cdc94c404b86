import Foundation
import NIOSSL
import StepSyncCore

/// The sink's own TLS (`serve --tls-cert FILE --tls-key FILE`): the same API over HTTPS, served by HummingbirdTLS
/// (NIOSSL). A plain-HTTP request to that port fails its TLS handshake and the connection is closed.
public struct SinkTLS: Hashable, Sendable {
    /// The PEM certificate chain (the server's certificate first).
    public var certificatePath: String
    /// The PEM private key of the certificate.
    public var keyPath: String

    /// Creates the TLS setup of the two files.
    public init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }

    /// The server's TLS configuration, with both files read now, so a wrong file stops `serve` before it listens.
    ///
    /// A certificate that has expired or is not valid yet at `now` (seconds since 1970) is refused with its date:
    /// every client would refuse it anyway, each saying only that it is not trusted.
    ///
    /// - Throws: ``SinkSetupError`` naming the option and the file.
    public func serverConfiguration(now: Int64) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw SinkSetupError(description: "--tls-cert \(certificatePath): not a readable PEM certificate (\(error))")
        }
        guard !chain.isEmpty else {
            throw SinkSetupError(description: "--tls-cert \(certificatePath): no certificate in it")
        }
        let leaf = chain[0]
        let validity = CertificateValidity.of(notBefore: Int64(leaf.notValidBefore), notAfter: Int64(leaf.notValidAfter),
                                              now: now)
        if let phrase = validity.phrase {
            throw SinkSetupError(description: """
                --tls-cert \(certificatePath): the certificate \(phrase) (it is now \(CertificateValidity.date(now))); \
                every client would refuse it — renew it, or check this machine's clock
                """)
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw SinkSetupError(description: "--tls-key \(keyPath): not a readable PEM private key (\(error))")
        }
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}
