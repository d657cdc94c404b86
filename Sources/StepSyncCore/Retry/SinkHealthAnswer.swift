import Foundation

/// The sink's answer to `GET /health`, as both sides see it: `{"status":"ok","service":"stepsync","api":1}`, or
/// `{"status":"degraded","reason":…,"since":…,"service":"stepsync","api":1}` with 503.
///
/// The sync asks it before sending anything, so that a `--server` pointing at something else (a plain web server, a
/// wrong path) is found out at once instead of failing every interval for hours. The body itself is a
/// ``SinkHealthBody``.
public enum SinkHealthAnswer {
    /// What the sink names itself.
    public static let service = "stepsync"
    /// The version of the sink's API (`/steps`, `/samples`, their deletions and answers).
    public static let apiVersion = 1

    /// Whether `body` is a stepsync sink's `/health` answer: a JSON object whose `status` is `ok` or `degraded`, and
    /// whose `service`, when present, is ``service`` (sinks before API version 1 sent only `status`).
    /// The body is read as a ``SinkHealthBody``, the type the sink writes it with.
    public static func isSink(_ body: [UInt8]) -> Bool {
        (try? SinkHealthBody(bytes: body))?.isStepSyncSink ?? false
    }

    /// At most `limit` characters of an answer's body for a message: an HTML page's `<title>` if it has one, else its
    /// text with runs of whitespace (and tags) collapsed, `…` when cut; `(empty body)` for none.
    public static func excerpt(_ body: some Collection<UInt8>, limit: Int = 100) -> String {
        let text = String(decoding: body.prefix(16_384), as: UTF8.self)
        if let open = text.range(of: "<title>", options: .caseInsensitive),
           let close = text.range(of: "</title>", options: .caseInsensitive, range: open.upperBound..<text.endIndex) {
            return "\"" + collapse(String(text[open.upperBound..<close.lowerBound]), limit: limit) + "\""
        }
        var plain = ""
        var inTag = false
        for c in text {
            if c == "<" { inTag = true; plain.append(" "); continue }
            if c == ">", inTag { inTag = false; continue }
            if !inTag { plain.append(c) }
        }
        let collapsed = collapse(plain, limit: limit)
        return collapsed.isEmpty ? "(empty body)" : "\"" + collapsed + "\""
    }

    private static func collapse(_ text: String, limit: Int) -> String {
        let words = text.split(whereSeparator: { $0.isWhitespace || $0.isNewline })
        var out = words.joined(separator: " ")
        if out.count > limit { out = String(out.prefix(limit)) + "…" }
        return out
    }
}
