import AsyncHTTPClient
import NIOCore
import NIOPosix
import NIOSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StepSyncCore

extension HTTPUploader {
    /// What a thrown network error means for the sync: ``UploadOutcome/unreachable(_:)`` when the request never
    /// reached the sink (connection refused or reset, name resolution, TLS, connect timeout) — a fact about the
    /// server — and ``UploadOutcome/transportFailure(_:)`` when it was sent but got no answer (read timeout, a
    /// connection closed mid-answer) — a fault of this request.
    static func outcome(of error: any Error) -> UploadOutcome {
        if let reason = untrustedCertificate(error) { return .untrusted(reason) }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return .unreachable("connect timed out")
            case .tlsHandshakeTimeout: return .unreachable("TLS handshake timed out")
            case .socksHandshakeTimeout, .httpProxyHandshakeTimeout: return .unreachable("proxy handshake timed out")
            case .readTimeout, .deadlineExceeded: return .transportFailure("no answer in time")
            case .remoteConnectionClosed: return .unreachable("connection closed by the server")
            default: return .transportFailure(describe(error))
            }
        }
        if let error = error as? NIOConnectionError {
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return .misaddressed("cannot resolve host \(error.host): check the host name in --server")
            }
            if let first = error.connectionErrors.first { return outcome(of: first.error) }
            return .unreachable(describe(error))
        }
        if let error = error as? IOError {
            return .unreachable(errnoDescription(error.errnoCode))
        }
        if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: return .unreachable("connect timed out")
            case .ioOnClosedChannel, .eof, .outputClosed, .inputClosed, .alreadyClosed:
                return .unreachable("connection closed by the server")
            default: return .transportFailure(describe(error))
            }
        }
        if error is SocketAddressError {
            return .misaddressed("cannot resolve the host: check the host name in --server")
        }
        let typeName = String(reflecting: type(of: error))
        if typeName.contains("NIOSSL") || typeName.contains("BoringSSL") || typeName.contains("TLS") {
            let text = String(describing: error)
            if text.contains("WRONG_VERSION_NUMBER") || text.lowercased().contains("wrong version number") {
                return .misaddressed("it does not speak TLS at that port: if the sink serves plain HTTP, use http://")
            }
            return .unreachable("TLS handshake failed: \(tlsReason(text))")
        }
        return .transportFailure(describe(error))
    }

    /// A thrown network error as one line for people: the untrusted certificate's message naming `--cacert`, else
    /// the error's own description (at most 300 characters).
    public static func explain(_ error: any Error, server: String) -> String {
        if let reason = untrustedCertificate(error) {
            return SinkFailure(.untrusted, detail: reason).message(server: server)
        }
        return describe(error)
    }

    /// ``explain(_:server:)``, but an untrusted certificate whose dates are the cause is named so: `the sink at … cannot
    /// be trusted: the server's certificate expired on 2021-01-01 00:00:00 UTC …` (``ServerCertificate``), held against
    /// `time`'s wall clock.
    public static func explainWithCertificateDates(_ error: any Error, server: String, time: TimeSource) async -> String {
        if untrustedCertificate(error) != nil,
           let dates = await ServerCertificate.outOfDate(server: server, now: time.nowMs() / 1000) {
            return SinkFailure(.outOfDateCertificate, detail: dates).message(server: server)
        }
        return explain(error, server: server)
    }

    /// Why the sink's certificate was not trusted, when `error` says so: a verification failure of the chain
    /// (unknown CA, self-signed, expired) or a name the certificate does not hold. Other TLS faults are `nil`
    /// (the sink is unreachable, and waiting may mend them).
    static func untrustedCertificate(_ error: any Error) -> String? {
        if let error = error as? NIOConnectionError {
            return error.connectionErrors.lazy.compactMap { untrustedCertificate($0.error) }.first
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return SinkFailure.anotherHostsCertificate
        }
        if let error = error as? NIOSSLError, case .handshakeFailed(let boring) = error {
            let text = String(describing: boring)
            if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") {
                return "certificate verify failed"
            }
        }
        return nil
    }

    /// `connection refused`, `connection reset`, … for the errno of a failed connect, read or write.
    static func errnoDescription(_ code: Int32) -> String {
        switch code {
        case ECONNREFUSED: return "connection refused"
        case ECONNRESET: return "connection reset"
        case EPIPE: return "connection closed by the server"
        case ETIMEDOUT: return "connect timed out"
        case EHOSTUNREACH: return "host unreachable"
        case ENETUNREACH: return "network unreachable"
        case EADDRNOTAVAIL: return "address not available"
        default: return String(cString: strerror(code)).lowercased()
        }
    }

    /// The reason code of a BoringSSL error (`SSLV3_ALERT_HANDSHAKE_FAILURE`), without the library's source paths
    /// and line numbers; the text cut to 120 characters when it holds none.
    static func tlsReason(_ text: String) -> String {
        if let match = text.firstMatch(of: /:([A-Z][A-Z0-9_]{3,})(?: at |\]|$)/) { return String(match.output.1) }
        return text.count > 120 ? String(text.prefix(120)) + "…" : text
    }

    /// The error as text, at most 300 characters.
    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }
}
