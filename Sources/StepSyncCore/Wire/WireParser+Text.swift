extension WireParser {
    /// From `start` inside a string: the index of the first `"`, `\`, control byte or the end of the input, every
    /// non-ASCII byte on the way checked as UTF-8 (``WireText``).
    ///
    /// The ASCII fast path takes 8 bytes at a time while none of them is special (`"`, `\`, < 0x20 or ≥ 0x80; the
    /// word test may flag a plain byte after a special one, never miss one), then goes byte by byte through the word
    /// that holds one: long plain strings cost less than the byte loop before the check, short ones about the same.
    @inline(__always)
    func scanText(from start: Int) throws(WireError) -> Int {
        var k = start
        let count = bytes.count
        while true {
            while k + 8 <= count {
                let w = bytes.loadUnaligned(fromByteOffset: k, as: UInt64.self)
                let ones: UInt64 = 0x0101_0101_0101_0101
                let special = (w &- ones &* 0x20) | ((w ^ ones &* 0x22) &- ones) | ((w ^ ones &* 0x5C) &- ones) | w
                if special & (ones &* 0x80) != 0 { break }
                k += 8
            }
            let stop = min(count, k + 8)
            while k < stop {
                let c = bytes[k]
                if c &- 0x20 < 0x60 {
                    if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return k }
                    k += 1
                } else if c < 0x20 {
                    return k
                } else {
                    k += try utf8Sequence(at: k)
                }
            }
            if k >= count { return k }
        }
    }

    /// The length of the well-formed UTF-8 sequence at `k`, or an `invalid_text` error (its field named by the
    /// caller, ``WireError/naming(_:)``).
    func utf8Sequence(at k: Int) throws(WireError) -> Int {
        let (length, problem) = WireText.sequence(bytes, at: k)
        if let problem { throw .invalidText(WireText.detail(bytes, at: k, problem), index: sampleIndex, offset: k) }
        return length
    }

    /// The scalar of a `\u` escape whose four hex digits gave `first` (just read): a high surrogate must be followed
    /// by `\u` and a low one (the pair is then read), and a low surrogate never comes first.
    mutating func escapedScalar(_ first: UInt32) throws(WireError) -> UInt32 {
        switch first {
        case 0xDC00..<0xE000:
            throw .invalidText("holds a lone surrogate \(Self.escape(first)) at byte \(i - 6)", index: sampleIndex, offset: i - 6)
        case 0xD800..<0xDC00:
            let at = i - 6
            guard matchLiteral("\\u") else {
                throw .invalidText("holds a lone surrogate \(Self.escape(first)) at byte \(at)", index: sampleIndex, offset: at)
            }
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else {
                throw .invalidText("holds a lone surrogate \(Self.escape(first)) (followed by \(Self.escape(low)), "
                    + "not a low surrogate) at byte \(at)", index: sampleIndex, offset: at)
            }
            return 0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00)
        default:
            return first
        }
    }

    /// `\uD800` for 0xD800.
    static func escape(_ unit: UInt32) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Where `target` (a byte offset inside the JSON value starting at `start`, syntactically valid up to `target`)
    /// lies in it, as a path: `metadata.note[1]`, or `metadata.(a key)` inside a key. For messages: each key is
    /// quoted as at most 24 Unicode scalars and the path as at most 64 (``InputExcerpt``). Only run on an error.
    static func jsonPath(_ bytes: UnsafeRawBufferPointer, from start: Int, to target: Int) -> String {
        struct Level {
            var isObject: Bool
            var key = ""
            var index = 0
            var expectingKey = true
        }
        var stack: [Level] = []
        var inKey = false
        var k = start
        scan: while k < target, k < bytes.count {
            switch bytes[k] {
            case UInt8(ascii: "{"): stack.append(Level(isObject: true))
            case UInt8(ascii: "["): stack.append(Level(isObject: false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = stack.popLast()
            case UInt8(ascii: ","):
                if let last = stack.indices.last {
                    if stack[last].isObject { stack[last].expectingKey = true } else { stack[last].index += 1 }
                }
            case UInt8(ascii: ":"):
                if let last = stack.indices.last { stack[last].expectingKey = false }
            case UInt8(ascii: "\""):
                var end = k + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                let isKey = stack.last.map { $0.isObject && $0.expectingKey } ?? false
                if target < end {
                    inKey = isKey
                    break scan
                }
                if isKey, let last = stack.indices.last {
                    let raw = UnsafeRawBufferPointer(rebasing: bytes[(k + 1)..<min(end, bytes.count)])
                    let text = String(decoding: raw, as: UTF8.self)
                    stack[last].key = text.unicodeScalars.count > 24 ? String(InputExcerpt.of(text).unicodeScalars.prefix(24)) + "…" : text
                }
                k = end
            default: break
            }
            k += 1
        }
        var path = ""
        // The target is inside a string: a key of the innermost object (`inKey`), or a value of every level's
        // current key or index.
        for (depth, level) in stack.enumerated() {
            if level.isObject {
                if depth == stack.count - 1 && inKey {
                    path += path.isEmpty ? "(a key)" : ".(a key)"
                } else {
                    path += (path.isEmpty ? "" : ".") + level.key
                }
            } else {
                path += "[\(level.index)]"
            }
        }
        return InputExcerpt.of(path)
    }
}
