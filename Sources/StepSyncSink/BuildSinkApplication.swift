import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the sink server over the JSONL storage of `configuration.dataPath`: takes the data directory's lock,
/// opens (and repairs) its files, rebuilds the uuid index, and returns the application `stepsync serve` runs and the
/// tests start on port 0. Run it in a `ServiceGroup`; stop it with `triggerGracefulShutdown()` (in-flight requests
/// finish and are committed, then the files are closed).
///
/// - Throws: ``SinkSetupError`` for a public bind without a token; ``SampleLogError`` when the data directory is
///   held by another sink or cannot be opened.
public func buildSinkApplication(configuration: SinkConfiguration, logger: Logger) async throws -> some ApplicationProtocol {
    try await buildSinkApplication(configuration: configuration, logger: logger, onServerRunning: { _ in })
}

/// ``buildSinkApplication(configuration:logger:)`` with a callback told the bound port once the server listens
/// (`serve` prints it; with port 0 it is the only way to learn it).
public func buildSinkApplication(
    configuration: SinkConfiguration,
    logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void
) async throws -> some ApplicationProtocol {
    try SinkSetupError.check(configuration)
    let storage = try JSONLStorage(stepsPath: configuration.dataPath, durable: configuration.durable,
                                   retryAfterSeconds: configuration.retryAfterSeconds, maxTypes: configuration.maxTypes,
                                   onSync: configuration.onSync, time: configuration.time,
                                   logger: logger)
    return try buildSinkApplication(configuration: configuration, storage: storage,
                                    authenticator: SharedTokenAuthenticator(token: configuration.token), logger: logger,
                                    onServerRunning: onServerRunning)
}

/// The sink server over any ``SampleStorage`` (the PostgreSQL sink passes its own storage and authenticator).
/// The storage runs as a service of the application: started before the server, stopped after it.
///
/// - Throws: ``SinkSetupError`` for a public bind without a token (unless the authenticator is not the shared
///   token's: a storage with its own clients always authenticates).
public func buildSinkApplication(
    configuration: SinkConfiguration,
    storage: some SampleStorage,
    authenticator: some SinkAuthenticator,
    logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    if authenticator is SharedTokenAuthenticator { try SinkSetupError.check(configuration) }
    let limits = configuration.connectionLimits
    let descriptorLimit = ConnectionLimits.currentDescriptorLimit()
    let registry = ConnectionRegistry(capacity: limits.connectionCap(descriptorLimit: descriptorLimit),
                                      onChange: configuration.onConnectionsChange)
    logger.info("Connection limits", metadata: [
        "sink.connections.max": "\(registry.capacity)",
        "sink.connections.descriptorLimit": "\(descriptorLimit.map(String.init) ?? "unlimited")",
        "sink.timeout.header": "\(limits.headerTimeout)", "sink.timeout.body": "\(limits.bodyTimeout)",
        "sink.timeout.idle": "\(limits.idleTimeout)",
    ])
    let guarded = GuardedHTTP1Channel.builder(limits: limits, registry: registry, time: configuration.time,
                                               logger: logger)
    let server: HTTPServerBuilder = if let tls = configuration.tls {
        try .tls(guarded, tlsConfiguration: tls.serverConfiguration(now: configuration.time.nowMs() / 1000))
    } else {
        guarded
    }
    var app = Application(
        responder: SinkResponder(storage: storage, authenticator: authenticator, configuration: configuration,
                                 loopbackOnly: HostPolicy.isLoopbackAddress(configuration.host),
                                 budget: BodyBudget(capacity: configuration.maxBufferedBytes),
                                 // A storage with clients of its own counts each one's activity apart.
                                 activity: SinkActivity(perClient: !(authenticator is SharedTokenAuthenticator),
                                                        time: configuration.time),
                                 metrics: SinkMetrics(storage: storage.storageDescription.kind,
                                                      startTimeSeconds: Double(configuration.time.nowMs()) / 1000),
                                 requestIDs: RequestIDs(seed: UInt64.random(in: .min ... .max))),
        server: server,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "stepsync"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
    app.addServices(storage)
    return app
}

/// The sink refuses to start as configured.
public struct SinkSetupError: Error, CustomStringConvertible {
    /// What to change.
    public let description: String

    /// Whether `host` is a loopback address (`localhost`, `127.0.0.0/8`, `::1`), which needs no token.
    public static func isLoopback(_ host: String) -> Bool { HostPolicy.isLoopbackAddress(host) }

    /// The shortest token a sink on a non-loopback address accepts.
    public static let minimumPublicTokenLength = 16

    /// Refuses a non-loopback bind without a token unless ``SinkConfiguration/allowUnauthenticated``, and with a
    /// token shorter than ``minimumPublicTokenLength`` characters or made of whitespace only.
    public static func check(_ configuration: SinkConfiguration) throws {
        guard !HostPolicy.isLoopbackAddress(configuration.host) else { return }
        guard let token = configuration.token else {
            guard !configuration.allowUnauthenticated else { return }
            throw SinkSetupError(description: """
                --host \(configuration.host) is reachable from other machines: set --token (or STEPSYNC_TOKEN) so only \
                clients with it can read and delete samples, or pass --allow-unauthenticated to run it open
                """)
        }
        let meaningful = token.unicodeScalars.filter { !$0.properties.isWhitespace }.count
        guard token.count >= minimumPublicTokenLength, meaningful > 0 else {
            throw SinkSetupError(description: """
                --host \(configuration.host) is reachable from other machines: its --token (or STEPSYNC_TOKEN) must be \
                at least \(minimumPublicTokenLength) characters and not only spaces (this one has \(token.count)); \
                e.g. openssl rand -base64 24
                """)
        }
    }
}
