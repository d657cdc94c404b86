import Foundation
import HTTPTypes
import Hummingbird
import StepSyncCore

/// An error answered to the client: a status and a JSON body `{"error":…,"message":…,"index":…,"field":…}`.
public struct SinkError: Error, CustomStringConvertible, HTTPResponseError {
    private enum Code: String {
        case badRequest = "bad_request"
        case unauthorized
        case notFound = "not_found"
        case methodNotAllowed = "method_not_allowed"
        case tooLarge = "too_large"
        case unsupportedMediaType = "unsupported_media_type"
        case storage = "storage_failed"
    }

    private let code: Code
    /// The HTTP status answered.
    public let status: HTTPResponse.Status
    /// What went wrong, for people.
    public let message: String
    private var kind: String
    private var sampleIndex: Int?
    private var field: String?
    /// Extra response headers (`Allow`, `WWW-Authenticate`).
    public var headers: HTTPFields = [:]

    private init(_ code: Code, _ status: HTTPResponse.Status, _ message: String) {
        self.code = code
        self.status = status
        self.message = message
        self.kind = code.rawValue
    }

    /// 400 for a body that is not valid wire JSON; names the problem, field and sample index.
    static func invalid(_ error: WireError) -> SinkError {
        var e = SinkError(.badRequest, .badRequest, error.description)
        e.kind = error.kind
        e.sampleIndex = error.sampleIndex
        e.field = error.field
        return e
    }

    /// 400 with a message.
    static func badRequest(_ message: String) -> SinkError { SinkError(.badRequest, .badRequest, message) }
    /// 401: missing or wrong bearer token.
    static func unauthorized() -> SinkError {
        var e = SinkError(.unauthorized, .unauthorized, "this sink needs Authorization: Bearer <token> (--token)")
        e.headers[.wwwAuthenticate] = "Bearer"
        return e
    }
    /// 404: no such path.
    static func notFound(_ path: String) -> SinkError {
        SinkError(.notFound, .notFound, "no endpoint \(path); try /steps, /steps/delete, /steps/daily or /health")
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
    /// 503: the data file could not be written; nothing of the request was acknowledged.
    static func storage(_ message: String) -> SinkError { SinkError(.storage, .serviceUnavailable, message) }

    public var description: String { "\(status.code) \(kind): \(message)" }

    /// The JSON body.
    var body: [UInt8] {
        var object: [String: Any] = ["error": kind, "message": message]
        if let sampleIndex { object["index"] = sampleIndex }
        if let field { object["field"] = field }
        return Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
