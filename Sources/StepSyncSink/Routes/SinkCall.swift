import Foundation
import Hummingbird

/// What a route's handler is given: the request, the route it matched with its parameters, the parsed query and
/// the client its token named.
struct SinkCall: Sendable {
    /// The request, its body unread.
    let request: Request
    /// The route matched.
    let route: SinkRoute
    /// The texts of the template's parameters in the request's path, in order (not yet checked).
    let parameters: [Substring]
    /// The query parameters.
    let query: SinkResponder.Query
    /// The client the token named.
    let client: ClientIdentity

    /// The route's template, for messages (`/samples/daily summarises …`).
    var template: String { route.template }

    /// The path parameter named `{name}` as a UUID; 400 naming it when it is not one.
    func uuid(_ name: Substring) throws -> UUID {
        let text = route.parameterNames.firstIndex(of: name).map { parameters[$0] } ?? ""
        guard let uuid = UUID(uuidString: String(text)) else {
            throw SinkError.badRequest("\(name) \"\(text.prefix(64))\" in the path is not a UUID", field: String(name))
        }
        return uuid
    }
}
