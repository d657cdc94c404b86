/// The automation that sent a Health Auto Export push, as its headers name it (`automation-name`, `automation-id`,
/// `session-id`): recorded in the answer (`automation: {name, id, sessionId}`) and in the request's log line, so a
/// push can be traced back to the phone's automation and run. Each value is kept to its first 256 bytes.
public struct HAEAutomation: Hashable, Sendable {
    /// The automation's name (`automation-name`).
    public var name: String?
    /// The automation's id (`automation-id`).
    public var id: String?
    /// The run's session id (`session-id`).
    public var sessionId: String?

    /// The longest value kept, in UTF-8 bytes.
    public static let maxBytes = 256

    /// The automation named by these header values, or `nil` when none is given.
    public init?(name: String?, id: String?, sessionId: String?) {
        guard name != nil || id != nil || sessionId != nil else { return nil }
        self.name = name.map(Self.clipped)
        self.id = id.map(Self.clipped)
        self.sessionId = sessionId.map(Self.clipped)
    }

    /// `{"id":…,"name":…,"sessionId":…}` with the values given, keys sorted.
    func encode(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in [("id", id), ("name", name), ("sessionId", sessionId)] {
            guard let value else { continue }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONBytes.appendKey(key, to: &out)
            JSONBytes.appendString(value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func clipped(_ text: String) -> String {
        String(decoding: text.utf8.prefix(maxBytes), as: UTF8.self)
    }
}
