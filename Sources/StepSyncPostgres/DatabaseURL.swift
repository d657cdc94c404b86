import Foundation
import PostgresNIO

/// A `postgresql://user[:password]@host[:port]/database[?sslmode=…]` address, parsed into a PostgresNIO client
/// configuration. `postgres://` is accepted too; `?host=/path` connects through a Unix socket directory.
///
/// `sslmode` follows libpq's names: `disable`, `prefer` (the default: TLS when the server offers it), `require`
/// (`verify-ca`/`verify-full` are taken as `require`, which verifies the certificate). The password never appears in
/// ``redacted`` nor in any error message.
public struct DatabaseURL: Sendable, CustomStringConvertible {
    /// The user to connect as.
    public let user: String
    /// The password, when the URL has one.
    let password: String?
    /// The host name or address (nil with a socket directory).
    public let host: String?
    /// The TCP port (5432 unless given).
    public let port: Int
    /// The database name (the user's name unless given).
    public let database: String
    /// The Unix socket directory (`?host=/dir`), when given.
    public let socketDirectory: String?
    /// libpq's `sslmode`.
    public let sslMode: String

    /// Parses `text`; throws ``PostgresStorageError`` naming what is wrong (never echoing the password).
    public init(_ text: String) throws {
        guard let components = URLComponents(string: text) else {
            throw PostgresStorageError.badURL("is not a URL; expected postgresql://user@host:port/database")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgresql" || scheme == "postgres" else {
            throw PostgresStorageError.badURL("must start with postgresql:// (as in postgresql://user@host:5432/database)")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let user = components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? query["user"]
        guard let user, !user.isEmpty else {
            throw PostgresStorageError.badURL("names no user; write postgresql://USER@host:port/database")
        }
        self.user = user
        self.password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding } ?? query["password"]
        let socket = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        self.socketDirectory = socket
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 }
        guard host != nil || socket != nil else {
            throw PostgresStorageError.badURL("names no host; write postgresql://user@HOST:port/database")
        }
        self.host = host
        self.port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw PostgresStorageError.badURL("has port \(port), outside 1…65535") }
        let name = components.path.drop(while: { $0 == "/" })
        self.database = name.isEmpty ? user : (String(name).removingPercentEncoding ?? String(name))
        let mode = query["sslmode"] ?? "prefer"
        guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(mode) else {
            throw PostgresStorageError.badURL("has sslmode=\(mode.prefix(20)); use disable, prefer or require")
        }
        self.sslMode = mode
    }

    /// The URL with the password replaced by `***`, for logs and messages.
    public var redacted: String {
        let auth = password == nil ? user : "\(user):***"
        let place = socketDirectory.map { "?host=\($0)" } ?? ""
        return "postgresql://\(auth)@\(host ?? "")\(host == nil ? "" : ":\(port)")/\(database)\(place)"
    }

    public var description: String { redacted }

    /// The PostgresNIO client configuration: `synchronous_commit=on` is sent at connection start, so a COMMIT
    /// returns only once the server has flushed its WAL, whatever the database's default.
    func clientConfiguration(maximumConnections: Int) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketDirectory {
            configuration = .init(unixSocketPath: socketDirectory + "/.s.PGSQL.\(port)", username: user,
                                  password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS
            switch sslMode {
            case "disable": tls = .disable
            case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
            default: tls = .prefer(.makeClientConfiguration())
            }
            configuration = .init(host: host ?? "127.0.0.1", port: port, username: user, password: password,
                                  database: database, tls: tls)
        }
        configuration.options.additionalStartupParameters = [("synchronous_commit", "on"), ("TimeZone", "UTC"),
                                                             ("application_name", "stepsync")]
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}
