import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import StepSyncCore

/// The validity dates of the certificate a TLS server presents, read over a connection that verifies nothing and
/// sends nothing: how `sync` and `reset --remote` tell an expired (or not yet valid) sink certificate from an
/// untrusted one once the real connection was refused with "certificate verify failed" (BoringSSL's error does not
/// say which check failed).
enum ServerCertificate {
    /// `notBefore`/`notAfter` (seconds since 1970) of the certificate `host:port` presents, or `nil` when it cannot
    /// be read within `timeout` (no TLS there, a refused connection).
    static func dates(host: String, port: Int, timeout: TimeAmount = .seconds(5)) async -> (notBefore: Int64, notAfter: Int64)? {
        // Full verification, replaced by a callback that takes the leaf's dates and ends the handshake there
        // (`.failed`): nothing is ever sent to the server.
        guard let context = try? NIOSSLContext(configuration: .makeClientConfiguration()) else { return nil }
        let serverName = CleartextToken.ipv4(host) != nil || host.contains(":") ? nil : host
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let promise = loop.makePromise(of: Dates?.self)
        let timer = loop.scheduleTask(in: timeout) { promise.succeed(nil) }
        let bootstrap = ClientBootstrap(group: loop).connectTimeout(timeout).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture(withResultOf: {
                let verify: NIOSSLCustomVerificationCallback = { chain, verdict in
                    promise.succeed(chain.first.map { Dates(notBefore: Int64($0.notValidBefore), notAfter: Int64($0.notValidAfter)) })
                    verdict.succeed(.failed)
                }
                let handler = try NIOSSLClientHandler(context: context, serverHostname: serverName,
                                                      customVerificationCallback: verify)
                try channel.pipeline.syncOperations.addHandler(handler)
            })
        }
        let channel: (any Channel)?
        do {
            let connected = try await bootstrap.connect(host: host, port: port).get()
            // Closed by the failed handshake; a server that never answers is cut at the timeout.
            connected.closeFuture.whenComplete { _ in promise.succeed(nil) }
            channel = connected
        } catch {
            promise.succeed(nil)
            channel = nil
        }
        let dates: Dates? = (try? await promise.futureResult.get()) ?? nil
        timer.cancel()
        if let channel { try? await channel.close() }
        return dates.map { ($0.notBefore, $0.notAfter) }
    }

    /// A certificate's validity dates, seconds since 1970.
    struct Dates: Sendable {
        var notBefore: Int64
        var notAfter: Int64
    }

    /// Why the certificate of the sink at `server` (a base URL) is refused, in words, when its dates are the cause:
    /// `the server's certificate expired on 2021-01-01 00:00:00 UTC`; `nil` when they are not (or it cannot be read).
    /// `now` is the wall clock's time, seconds since 1970.
    static func outOfDate(server: String, now: Int64) async -> String? {
        guard let components = URLComponents(string: server), components.scheme?.lowercased() == "https",
              var host = components.host else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let dates = await dates(host: host, port: components.port ?? 443) else { return nil }
        let validity = CertificateValidity.of(notBefore: dates.notBefore, notAfter: dates.notAfter, now: now)
        return validity.phrase.map { "the server's certificate \($0) (it is now \(CertificateValidity.date(now)))" }
    }
}
