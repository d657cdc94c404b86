/// A bad export range bound: which parameter, and what is wrong with it.
public struct ExportRangeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The parameter at fault (`--from`, `to`, …).
    public var parameter: String
    /// What is wrong, naming the parameter and its value.
    public var message: String

    /// Creates an error.
    public init(parameter: String, message: String) {
        self.parameter = parameter
        self.message = message
    }

    public var description: String { message }
}
