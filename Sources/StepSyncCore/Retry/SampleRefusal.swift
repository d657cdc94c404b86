/// A sink's refusal of a request because of one sample it names: a 4xx whose body is
/// `{"error":"negative_value","message":"sample 3: field \"value\" …","index":3,"field":"value"}`.
///
/// An older or stricter sink than the engine's own ``SampleValidation`` may refuse a sample the engine let through;
/// the engine then records that sample as rejected and resends the interval without it (``IntervalSendMachine``).
public struct SampleRefusal: Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status (400, 422, …).
    public var status: Int
    /// The index of the refused sample in the request's `samples` array.
    public var index: Int
    /// The sink's machine-readable reason (`negative_value`, `invalid_count`, …), or `refused` when it gave none.
    public var reason: String
    /// The field at fault, when the sink named it.
    public var field: String?
    /// The sink's message.
    public var message: String

    /// Creates a refusal.
    public init(status: Int, index: Int, reason: String, field: String?, message: String) {
        self.status = status
        self.index = index
        self.reason = reason
        self.field = field
        self.message = message
    }

    /// `HTTP 400: sample 3: field "count": -2 is negative`.
    public var description: String { "HTTP \(status): \(message)" }
}
