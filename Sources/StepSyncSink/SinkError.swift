import HTTPTypes
import Hummingbird
import NIOCore
import StepSyncCore

/// An error answered to the client: a status and a JSON body ``SinkErrorAnswer``,
/// `{"error":…,"field":…,"index":…,"message":…}` (`index` and `field` when a sample is at fault). Messages never
/// quote more than 64 characters of the input.
public struct SinkError: Error, CustomStringConvertible, HTTPResponseError {
    private let code: ErrorKind
    /// The HTTP status answered.
    public let status: HTTPResponse.Status
    /// What went wrong, for people.
    public let message: String
    private var kind: String
    private var sampleIndex: Int?
    private var field: String?
    /// Extra response headers (`Allow`, `WWW-Authenticate`, `Retry-After`).
    public var headers: HTTPFields = [:]

    private init(_ code: ErrorKind, _ status: HTTPResponse.Status, _ message: String) {
        self.code = code
        self.status = status
        self.message = message
        self.kind = code.rawValue
    }

    /// 400 for a body that is not valid wire JSON or holds a sample ``SampleValidation`` refuses; `error` is the
    /// problem's kind (`malformed_json`, `instant_out_of_range`, `field_too_long`, …), with its field and sample index.
    static func invalid(_ error: WireError) -> SinkError {
        var e = SinkError(.badRequest, .badRequest, error.description)
        e.kind = error.kind
        e.sampleIndex = error.sampleIndex
        e.field = error.field
        return e
    }

    /// 400 naming a query parameter or body field.
    static func badRequest(_ message: String, field: String? = nil) -> SinkError {
        var e = SinkError(.badRequest, .badRequest, message)
        e.field = field
        return e
    }

    /// 401: missing or wrong bearer token.
    static func unauthorized() -> SinkError {
        var e = SinkError(.unauthorized, .unauthorized, "this sink needs Authorization: Bearer <token>")
        e.headers[.wwwAuthenticate] = "Bearer"
        return e
    }

    /// 421: a request to a loopback sink whose `Host` is not a loopback name — a web page reaching it through DNS
    /// rebinding.
    static func foreignHost(_ host: String) -> SinkError {
        SinkError(.misdirectedHost, .misdirectedRequest, """
            this sink listens on loopback and answers only requests for localhost, 127.0.0.1 or [::1], \
            not "\(host.prefix(64))"
            """)
    }

    /// 404: no such path.
    static func notFound(_ path: String) -> SinkError {
        SinkError(.notFound, .notFound, """
            no endpoint \(path.prefix(64)); try /steps, /steps/delete, /steps/daily, /samples, /samples/types, \
            /samples/delete, /stats, /health, /openapi.json or / (the dashboard)
            """)
    }

    /// 404 `not_found` for a thing an endpoint names that the client does not hold (a workout's route, an ECG
    /// recording): `what` says which, for people.
    static func absent(_ what: String) -> SinkError {
        SinkError(.notFound, .notFound, what)
    }

    /// 405 with the methods the path allows.
    static func methodNotAllowed(_ method: HTTPRequest.Method, _ path: String, allow: [HTTPRequest.Method]) -> SinkError {
        let list = allow.map(\.rawValue).joined(separator: ", ")
        var e = SinkError(.methodNotAllowed, .methodNotAllowed, "\(method.rawValue) is not allowed on \(path); allowed: \(list)")
        e.headers[.allow] = list
        return e
    }

    /// 413.
    static func tooLarge(_ message: String) -> SinkError { SinkError(.tooLarge, .contentTooLarge, message) }

    /// 415.
    static func unsupportedMediaType(_ message: String) -> SinkError {
        SinkError(.unsupportedMediaType, .unsupportedMediaType, message)
    }

    /// 503 with `Retry-After`: the storage cannot write now; nothing of the request was acknowledged.
    static func unavailable(_ message: String, retryAfterSeconds: Int) -> SinkError {
        var e = SinkError(.storageUnavailable, .serviceUnavailable, message)
        e.headers[.retryAfter] = String(retryAfterSeconds)
        return e
    }

    /// 503 with `Retry-After`: the request bodies in flight already hold the memory budget.
    static func busy(_ message: String, retryAfterSeconds: Int) -> SinkError {
        var e = SinkError(.busy, .serviceUnavailable, message)
        e.headers[.retryAfter] = String(retryAfterSeconds)
        return e
    }

    /// The answer to a storage error: 503 for ``SampleStorageError/unavailable(_:retryAfterSeconds:)``, 400
    /// `too_many_types` (field `type`) past the type limit, 400 `invalid_type` for a type the storage cannot hold, 400
    /// for a bad cursor.
    static func storage(_ error: SampleStorageError) -> SinkError {
        if error.isUnavailable { return unavailable(error.message, retryAfterSeconds: error.retryAfterSeconds ?? 5) }
        if error.isTooManyTypes {
            var e = badRequest(error.message, field: "type")
            e.kind = "too_many_types"
            return e
        }
        if error.isInvalidType {
            var e = badRequest(error.message, field: "type")
            e.kind = "invalid_type"
            return e
        }
        return badRequest(error.message, field: "cursor")
    }

    public var description: String { "\(status.code) \(kind): \(message)" }

    /// The JSON body, as the sync reads it.
    var answer: SinkErrorAnswer { SinkErrorAnswer(error: kind, message: message, index: sampleIndex, field: field) }

    /// The JSON body's bytes.
    var body: [UInt8] { answer.encoded() }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
