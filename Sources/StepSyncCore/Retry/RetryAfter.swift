/// Parsing of the `Retry-After` header.
public enum RetryAfter {
    /// The delay a `Retry-After` value names, in seconds: delta-seconds (`120`, and fractional `0.05` for tests).
    /// HTTP dates and anything unparsable give `nil`, and the policy's own backoff applies.
    public static func seconds(_ value: String?) -> Double? {
        guard let trimmed = value?.trimmingWhitespace(), !trimmed.isEmpty,
              let seconds = Double(trimmed), seconds.isFinite, seconds >= 0
        else { return nil }
        return seconds
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> Substring {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
