import HTTPTypes

/// Cross-origin access for browser apps on other origins (`serve --cors-origin`): none by default.
///
/// For a request whose `Origin` is one of ``allowedOrigins`` (compared exactly, as browsers send it:
/// `https://app.example` — scheme, host and port, no path), every answer carries `Access-Control-Allow-Origin` with
/// that origin (never `*`: the API takes bearer tokens) and `Vary: Origin`, and a preflight (`OPTIONS` with
/// `Access-Control-Request-Method`) is answered 204 with the methods and headers the API uses. Any other origin gets no
/// CORS header, so the browser keeps its page from reading the answer; a preflight from it is answered like any
/// `OPTIONS` (405).
public struct CORSPolicy: Sendable, Equatable {
    /// The origins allowed, as `scheme://host[:port]`.
    public let allowedOrigins: Set<String>

    /// How long a browser may cache a preflight answer, in seconds.
    public static let maxAgeSeconds = 600
    /// The methods a preflight allows.
    public static let allowedMethods = "GET, HEAD, POST, DELETE"
    /// The request headers a preflight allows.
    public static let allowedHeaders = "Authorization, Content-Type, Content-Encoding"
    /// The response headers a page may read beyond the simple ones.
    public static let exposedHeaders = "Retry-After, WWW-Authenticate"

    /// A policy allowing `origins`.
    public init(allowedOrigins: some Sequence<String>) {
        self.allowedOrigins = Set(allowedOrigins)
    }

    /// No cross-origin access.
    public static let none = CORSPolicy(allowedOrigins: [])

    /// Why `origin` cannot be allowed (it must be `http://` or `https://` with a host, no path, query or trailing
    /// slash, and not `*`), or `nil` when it can.
    public static func problem(with origin: String) -> String? {
        let lower = origin.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }) else {
            return "\(origin.prefix(64)) is not an origin: write it as the browser sends it, e.g. https://app.example or http://localhost:5173"
        }
        let rest = origin.dropFirst(scheme.count)
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("?"), !rest.contains("#"), !rest.contains("*"),
              !rest.contains(" ")
        else {
            return "\(origin.prefix(64)) is not an origin: scheme://host[:port] only, no path, wildcard or trailing slash"
        }
        return nil
    }

    /// Whether a request from `origin` may read the answers.
    public func allows(_ origin: String?) -> Bool {
        guard let origin else { return false }
        return allowedOrigins.contains(origin)
    }

    /// The headers every answer to an allowed `origin` carries.
    func responseHeaders(origin: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlExposeHeaders] = Self.exposedHeaders
        headers[.vary] = "Origin"
        return headers
    }

    /// The headers of a preflight answer to an allowed `origin`.
    func preflightHeaders(origin: String) -> HTTPFields {
        var headers = responseHeaders(origin: origin)
        headers[.accessControlAllowMethods] = Self.allowedMethods
        headers[.accessControlAllowHeaders] = Self.allowedHeaders
        headers[.accessControlMaxAge] = String(Self.maxAgeSeconds)
        return headers
    }
}
