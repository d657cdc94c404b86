/// A Health Auto Export body the sink refuses whole (400, nothing stored): not JSON, or not the app's shape.
public struct HAEPayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field at fault as a path (`data.metrics[2].data`), or `body` for the body itself.
    public var field: String
    /// What is wrong, for a person.
    public var message: String

    /// Creates an error.
    public init(field: String, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { "\(field) \(message)" }
}
