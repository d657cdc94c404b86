import Foundation

/// One tag found by ``XMLChunkScanner``. Its buffers point into the scanner's input and are valid only during the
/// ``XMLTagHandler/handle(_:)`` call.
struct XMLTag {
    /// Start tag `<a …>`, empty-element tag `<a …/>` or end tag `</a>`.
    enum Kind { case start, empty, end }

    /// Which kind of tag.
    var kind: Kind
    /// The element name's bytes.
    var name: UnsafeRawBufferPointer
    /// The raw bytes between the name and `>` or `/>`: the attributes, not yet decoded.
    var attributes: UnsafeRawBufferPointer
    /// The line the tag starts on (1-based).
    var line: Int
}

/// Receives the tags of a document, in order.
protocol XMLTagHandler {
    /// Handles one tag; throwing stops the scan.
    mutating func handle(_ tag: XMLTag) throws
}

/// A streaming, tolerant XML tag scanner over byte chunks, written for Apple Health exports.
///
/// Feed it the document in chunks of any size (``feed(_:to:)``), then call ``finish()``. It keeps no more than one
/// unfinished tag between chunks (a tag split across a chunk boundary is carried over and completed by the next
/// chunk), so memory is bounded by the chunk size plus the longest tag (at most ``maxTagBytes``).
///
/// What it does and does not do:
/// - Start, end and empty-element tags are handed to the handler with their raw attribute bytes; quotes are tracked
///   so a `>` inside an attribute value does not end a tag. Character data between tags is skipped (Apple Health
///   keeps everything in attributes).
/// - `<?…?>`, comments and CDATA sections are skipped.
/// - A `<!DOCTYPE` is skipped *to the `<HealthData` start tag* rather than parsed: Apple's internal DTD subset is
///   malformed in iOS 16 exports (`<!ATTLIST VisionPrescription` lacks its `>`), and nothing in it is needed.
/// - Lines are counted (`\n`) so every error can name one.
struct XMLChunkScanner {
    /// The longest tag accepted; a longer one means the input is not what we think it is.
    static let maxTagBytes = 1 << 20

    private enum State {
        /// Between tags.
        case text
        /// Just after `<`.
        case open
        /// Inside a start or end tag, possibly inside a quoted attribute value.
        case tag(quote: UInt8)
        /// After `<!` or `<?`: collecting bytes until the construct is known.
        case markup
        /// Skipping to (and past) a pattern.
        case skip(PatternMatcher)
    }

    private var state = State.text
    /// The bytes of an unfinished tag (or markup opener) from earlier chunks.
    private var carry: [UInt8] = []
    /// The current line (1-based).
    private(set) var line = 1
    /// The line the current tag started on.
    private var tagLine = 1
    /// The line the current skipped construct started on.
    private var skipLine = 1

    init() {}

    /// Scans `chunk`, handing every complete tag to `handler`.
    mutating func feed<H: XMLTagHandler>(_ chunk: UnsafeRawBufferPointer, to handler: inout H) throws {
        let n = chunk.count
        var i = 0
        var tagStart = 0
        while i < n {
            switch state {
            case .text:
                while i < n {
                    let c = chunk[i]
                    if c == UInt8(ascii: "<") { break }
                    if c == UInt8(ascii: "\n") { line += 1 }
                    i += 1
                }
                if i < n {
                    tagLine = line
                    tagStart = i
                    i += 1
                    state = .open
                }

            case .open:
                let c = chunk[i]
                if c == UInt8(ascii: "!") || c == UInt8(ascii: "?") {
                    carry.removeAll(keepingCapacity: true)
                    carry.append(UInt8(ascii: "<"))
                    state = .markup
                } else {
                    state = .tag(quote: 0)
                }

            case .tag(var quote):
                var found = -1
                var j = i
                while j < n {
                    if quote != 0 {
                        // Inside a value (most of a tag's bytes): jump to its closing quote with memchr, then count
                        // the newlines jumped over (rare inside values; memchr again).
                        let end = Self.index(of: quote, in: chunk, from: j) ?? n
                        line += Self.newlines(in: chunk, from: j, to: end)
                        if end == n { j = n; break }
                        quote = 0
                        j = end + 1
                        continue
                    }
                    let c = chunk[j]
                    if c == UInt8(ascii: ">") {
                        found = j
                        break
                    } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                        quote = c
                    } else if c == UInt8(ascii: "\n") {
                        line += 1
                    }
                    j += 1
                }
                if found < 0 {
                    carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[tagStart..<n]))
                    guard carry.count <= Self.maxTagBytes else {
                        throw XMLProblem(kind: .malformed, line: tagLine,
                                         reason: "a tag longer than \(Self.maxTagBytes) bytes starts here")
                    }
                    state = .tag(quote: quote)
                    i = n
                } else {
                    state = .text
                    i = found + 1
                    if carry.isEmpty {
                        try dispatch(UnsafeRawBufferPointer(rebasing: chunk[tagStart..<i]), to: &handler)
                    } else {
                        carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[tagStart..<i]))
                        let line = tagLine
                        try carry.withUnsafeBytes { try Self.dispatch($0, line: line, to: &handler) }
                        carry.removeAll(keepingCapacity: true)
                    }
                }

            case .markup:
                let c = chunk[i]
                i += 1
                if c == UInt8(ascii: "\n") { line += 1 }
                carry.append(c)
                try classifyMarkup()

            case .skip(var matcher):
                var matched = false
                while i < n {
                    let c = chunk[i]
                    if c == UInt8(ascii: "\n") { line += 1 }
                    i += 1
                    if matcher.advance(c) { matched = true; break }
                }
                if !matched {
                    state = .skip(matcher)
                } else if matcher.opensTag {
                    // Skipped the DOCTYPE to `<HealthData`: carry on inside that start tag.
                    carry.removeAll(keepingCapacity: true)
                    carry.append(contentsOf: matcher.pattern)
                    tagLine = line
                    tagStart = i
                    state = .tag(quote: 0)
                } else {
                    state = .text
                }
            }
        }
        // A `<` at the very end of the chunk is carried over; the next chunk says what it opens.
        if case .open = state {
            carry.removeAll(keepingCapacity: true)
            carry.append(UInt8(ascii: "<"))
        }
    }

    /// Checks that the document did not end inside a construct.
    func finish() throws {
        switch state {
        case .text:
            return
        case .open, .tag, .markup:
            throw XMLProblem(kind: .truncated, line: tagLine, reason: "the file ends inside the tag that starts here")
        case .skip(let matcher):
            if matcher.opensTag {
                throw XMLProblem(kind: .malformed, line: skipLine,
                                 reason: "no <HealthData> element follows this DOCTYPE: this is not an Apple Health export")
            }
            throw XMLProblem(kind: .truncated, line: skipLine,
                             reason: "the file ends inside the comment or declaration that starts here")
        }
    }

    /// Decides what an `<!…` or `<?…` opener is, once enough bytes are in `carry`.
    private mutating func classifyMarkup() throws {
        let openers: [(String, PatternMatcher)] = [
            ("<?", PatternMatcher("?>")),
            ("<!--", PatternMatcher("-->")),
            ("<![CDATA[", PatternMatcher("]]>")),
            ("<!DOCTYPE", PatternMatcher("<HealthData", opensTag: true)),
        ]
        var isPrefix = false
        for (opener, matcher) in openers {
            let bytes = Array(opener.utf8)
            if carry == bytes {
                skipLine = tagLine
                state = .skip(matcher)
                carry.removeAll(keepingCapacity: true)
                return
            }
            if bytes.starts(with: carry) { isPrefix = true }
        }
        guard isPrefix else {
            let text = String(decoding: carry, as: UTF8.self)
            throw XMLProblem(kind: .malformed, line: tagLine, reason: "unexpected markup \"\(text)\" outside a DOCTYPE")
        }
    }

    private func dispatch<H: XMLTagHandler>(_ tag: UnsafeRawBufferPointer, to handler: inout H) throws {
        try Self.dispatch(tag, line: tagLine, to: &handler)
    }

    /// Splits a complete tag `<…>` into kind, name and attributes and hands it over.
    private static func dispatch<H: XMLTagHandler>(_ t: UnsafeRawBufferPointer, line: Int, to handler: inout H) throws {
        let count = t.count  // t[0] == "<", t[count - 1] == ">"
        if count >= 2, t[1] == UInt8(ascii: "/") {
            var start = 2, end = count - 1
            while start < end, isSpace(t[start]) { start += 1 }
            while end > start, isSpace(t[end - 1]) { end -= 1 }
            guard end > start else { throw XMLProblem(kind: .malformed, line: line, reason: "an end tag without a name") }
            try handler.handle(XMLTag(kind: .end, name: UnsafeRawBufferPointer(rebasing: t[start..<end]),
                                      attributes: UnsafeRawBufferPointer(rebasing: t[end..<end]), line: line))
            return
        }
        var end = count - 1
        var kind = XMLTag.Kind.start
        if end > 1, t[end - 1] == UInt8(ascii: "/") {
            kind = .empty
            end -= 1
        }
        var nameEnd = 1
        while nameEnd < end, !isSpace(t[nameEnd]) { nameEnd += 1 }
        guard nameEnd > 1 else { throw XMLProblem(kind: .malformed, line: line, reason: "a tag without a name") }
        try handler.handle(XMLTag(kind: kind, name: UnsafeRawBufferPointer(rebasing: t[1..<nameEnd]),
                                  attributes: UnsafeRawBufferPointer(rebasing: t[nameEnd..<end]), line: line))
    }

    /// The index of the first `byte` in `buffer[from...]`, or `nil` (memchr: vectorised by the C library).
    @inline(__always)
    static func index(of byte: UInt8, in buffer: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard from < buffer.count, let base = buffer.baseAddress,
              let hit = memchr(base + from, Int32(byte), buffer.count - from)
        else { return nil }
        return base.distance(to: UnsafeRawPointer(hit))
    }

    /// How many `\n` bytes `buffer[from..<to]` holds.
    @inline(__always)
    static func newlines(in buffer: UnsafeRawBufferPointer, from: Int, to: Int) -> Int {
        var count = 0
        var at = from
        while at < to, let hit = index(of: UInt8(ascii: "\n"), in: UnsafeRawBufferPointer(rebasing: buffer[..<to]), from: at) {
            count += 1
            at = hit + 1
        }
        return count
    }

    @inline(__always)
    static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D
    }
}

/// Finds a byte pattern in a stream fed one byte at a time (Knuth–Morris–Pratt), across chunk boundaries.
struct PatternMatcher {
    /// The pattern.
    let pattern: [UInt8]
    /// Whether a match leaves the scanner inside a start tag (the pattern is `<HealthData`).
    let opensTag: Bool
    private let failure: [Int]
    private var matched = 0

    init(_ text: String, opensTag: Bool = false) {
        pattern = Array(text.utf8)
        self.opensTag = opensTag
        var failure = [Int](repeating: 0, count: pattern.count)
        var k = 0
        for q in 1..<max(1, pattern.count) {
            while k > 0, pattern[k] != pattern[q] { k = failure[k - 1] }
            if pattern[k] == pattern[q] { k += 1 }
            failure[q] = k
        }
        self.failure = failure
    }

    /// Feeds one byte; returns true when it completes the pattern.
    @inline(__always)
    mutating func advance(_ c: UInt8) -> Bool {
        while matched > 0, pattern[matched] != c { matched = failure[matched - 1] }
        if pattern[matched] == c { matched += 1 }
        if matched == pattern.count {
            matched = 0
            return true
        }
        return false
    }
}
