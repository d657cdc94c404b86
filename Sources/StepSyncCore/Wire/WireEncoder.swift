import Foundation

/// Writes the HealthStepsSync wire JSON by hand, with precomputed keys.
///
/// The request body is `{"samples":[{…},{…}]}`; each object is
/// `{"uuid":"D67311EE-FACB-41AA-B202-8D266F3EDE18","startDate":"2025-05-11T16:27:22.000Z","endDate":"2025-05-11T16:29:03.000Z","count":6176,"sourceBundleId":"com.apple.health","sourceDeviceName":"iPhone"}`:
/// the uuid upper-case, dates by ``ISO8601Millis/write(_:into:)``, `count` an integer when whole and a decimal
/// number otherwise, `sourceDeviceName` left out when `nil`, strings JSON-escaped. The sink's `steps.jsonl` holds the
/// same objects, one a line. `JSONEncoder` does the same at a tenth of the speed; see `Planning/wire-format.md`.
public enum WireEncoder {
    /// The request body `{"samples":[…]}` for `samples`.
    public static func encodeRequest(_ samples: [HealthSample]) -> [UInt8] {
        encodeSamples(samples, capacity: 16 + samples.count * 200) { appendObject($0, to: &$1) }
    }

    /// The request body `{"samples":[…]}` for wire samples.
    public static func encodeRequest(_ samples: [WireSample]) -> [UInt8] {
        encodeSamples(samples, capacity: 16 + samples.count * 200) { appendObject($0, to: &$1) }
    }

    /// `{"samples":[…]}` with each of `samples` written by `append`, comma-separated: the frame of every request
    /// body that carries samples (`POST /steps` and `POST /samples`).
    @inline(__always)
    static func encodeSamples<S>(_ samples: [S], capacity: Int, _ append: (S, inout [UInt8]) -> Void) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        out.append(contentsOf: samplesPrefix)
        for (i, sample) in samples.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            append(sample, &out)
        }
        out.append(contentsOf: samplesSuffix)
        return out
    }

    /// Appends one JSONL line (the sample object and `\n`) to `out`.
    public static func appendLine(_ sample: HealthSample, to out: inout [UInt8]) {
        appendObject(sample, to: &out)
        out.append(UInt8(ascii: "\n"))
    }

    /// Appends one JSONL line (the sample object and `\n`) to `out`.
    public static func appendLine(_ sample: WireSample, to out: inout [UInt8]) {
        appendObject(sample, to: &out)
        out.append(UInt8(ascii: "\n"))
    }

    /// Appends the wire object of `sample` (no separator, no newline) to `out`.
    public static func appendObject(_ sample: WireSample, to out: inout [UInt8]) {
        appendStepObject(uuid: sample.uuid, startMs: sample.startMs, endMs: sample.endMs, value: sample.count,
                         bundle: sample.sourceBundleId, device: sample.sourceDeviceName, to: &out)
    }

    /// ``appendStepObject(uuid:startMs:endMs:value:bundle:device:to:)-(_,_,_,_,UnsafeBufferPointer<UInt8>,_,_)``
    /// with the text fields as strings.
    @inline(__always)
    static func appendStepObject(uuid: UUID, startMs: Int64, endMs: Int64, value: Double, bundle: String,
                                 device: String?, to out: inout [UInt8]) {
        var bundle = bundle
        bundle.withUTF8 { b in
            withOptionalUTF8(device) { d in
                appendStepObject(uuid: uuid, startMs: startMs, endMs: endMs, value: value, bundle: b, device: d,
                                 to: &out)
            }
        }
    }

    /// Appends the `/steps` object of these fields: the one writer of it (the common case in one piece, see
    /// ``appendCleanStepObject(uuid:startMs:endMs:value:bundle:device:to:)``, anything else escaped field by field).
    @inline(__always)
    static func appendStepObject(
        uuid: UUID, startMs: Int64, endMs: Int64, value: Double, bundle: UnsafeBufferPointer<UInt8>,
        device: UnsafeBufferPointer<UInt8>?, to out: inout [UInt8]
    ) {
        if appendCleanStepObject(uuid: uuid, startMs: startMs, endMs: endMs, value: value, bundle: bundle,
                                 device: device, to: &out) {
            return
        }
        out.append(contentsOf: uuidKey)
        appendUUID(uuid, to: &out)
        out.append(contentsOf: startKey)
        appendDate(startMs, to: &out)
        out.append(contentsOf: endKey)
        appendDate(endMs, to: &out)
        out.append(contentsOf: countKey)
        appendNumber(value, to: &out)
        out.append(contentsOf: bundleKey)
        appendEscaped(bundle, to: &out)
        appendOptional(deviceKey, device, closingQuote: false, to: &out)
        out.append(contentsOf: objectEnd)
    }

    /// Runs `body` with the UTF-8 of `text`, or `nil` when there is none.
    @inline(__always)
    static func withOptionalUTF8<R>(_ text: String?, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        guard var text else { return body(nil) }
        return text.withUTF8 { body($0) }
    }

    /// Appends `key` and the escaped `value` (and a closing `"` when asked) when `value` is present.
    @inline(__always)
    static func appendOptional(_ key: [UInt8], _ value: UnsafeBufferPointer<UInt8>?, closingQuote: Bool = true,
                               to out: inout [UInt8]) {
        guard let value else { return }
        out.append(contentsOf: key)
        appendEscaped(value, to: &out)
        if closingQuote { out.append(UInt8(ascii: "\"")) }
    }

    /// Appends the wire object of a step-count `sample` (the object of its
    /// ``WireSample``, byte for byte) to `out`.
    ///
    /// The sync encodes every sample of a request through here, so the common case — a whole count, a bundle id and
    /// device name with nothing to escape — is written into one stack buffer and appended once, rather than as
    /// eleven appends to `out` (each with its own capacity and uniqueness check) after copying the sample into a
    /// ``WireSample`` (two string retains and releases). Anything else takes the general path.
    public static func appendObject(_ sample: HealthSample, to out: inout [UInt8]) {
        appendStepObject(uuid: sample.uuid, startMs: sample.startMs, endMs: sample.endMs, value: sample.value,
                         bundle: sample.sourceBundleId, device: sample.deviceName, to: &out)
    }

    /// Writes the `/steps` object of the common case — a whole count, a bundle id and device name with nothing to
    /// escape — into one stack buffer and appends it once; returns `false` (and appends nothing) otherwise.
    @inline(__always)
    static func appendCleanStepObject(
        uuid: UUID, startMs: Int64, endMs: Int64, value: Double, bundle b: UnsafeBufferPointer<UInt8>,
        device: UnsafeBufferPointer<UInt8>?, to out: inout [UInt8]
    ) -> Bool {
        guard value.isFinite, value == value.rounded(.towardZero), abs(value) < 9_007_199_254_740_992 else {
            return false
        }
        let hasDevice = device != nil
        let d = device ?? UnsafeBufferPointer(start: nil, count: 0)
        guard isClean(b), isClean(d) else { return false }
        let capacity = 200 + b.count + d.count  // 191 bytes of keys, uuid, dates and count at most
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            let base = buffer.baseAddress!
            var n = 0
            @inline(__always) func put(_ bytes: UnsafeBufferPointer<UInt8>) {
                if let source = bytes.baseAddress, !bytes.isEmpty {
                    (base + n).update(from: source, count: bytes.count)
                }
                n += bytes.count
            }
            uuidKey.withUnsafeBufferPointer(put)
            writeUUID(uuid, into: base + n)
            n += 36
            startKey.withUnsafeBufferPointer(put)
            ISO8601Millis.write(startMs, into: base + n)
            n += 24
            endKey.withUnsafeBufferPointer(put)
            ISO8601Millis.write(endMs, into: base + n)
            n += 24
            countKey.withUnsafeBufferPointer(put)
            let integer = Int64(value)
            if integer < 0 { base[n] = UInt8(ascii: "-"); n += 1 }
            var magnitude = integer.magnitude
            var digits = 1
            var rest = magnitude / 10
            while rest > 0 { digits += 1; rest /= 10 }
            n += digits
            var k = n
            repeat {
                k -= 1
                base[k] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bundleKey.withUnsafeBufferPointer(put)
            put(b)
            if hasDevice {
                deviceKey.withUnsafeBufferPointer(put)
                put(d)
            }
            objectEnd.withUnsafeBufferPointer(put)
            out.append(contentsOf: UnsafeBufferPointer(start: base, count: n))
        }
        return true
    }

    /// Whether `bytes` need no JSON escape (``JSONBytes/isClean(_:)``).
    @inline(__always)
    static func isClean(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { JSONBytes.isClean(bytes) }

    // MARK: - Pieces

    private static let samplesPrefix = Array(#"{"samples":["#.utf8)
    private static let samplesSuffix = Array("]}".utf8)
    static let uuidKey = Array(#"{"uuid":""#.utf8)
    static let startKey = Array(#"","startDate":""#.utf8)
    static let endKey = Array(#"","endDate":""#.utf8)
    static let countKey = Array(#"","count":"#.utf8)
    static let bundleKey = Array(#","sourceBundleId":""#.utf8)
    static let deviceKey = Array(#"","sourceDeviceName":""#.utf8)
    static let objectEnd = Array(#""}"#.utf8)
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Appends the 36 upper-case characters of `uuid`.
    @inline(__always)
    static func appendUUID(_ uuid: UUID, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { buffer in
            writeUUID(uuid, into: buffer.baseAddress!)
            out.append(contentsOf: buffer)
        }
    }

    /// Writes the 36 upper-case characters of `uuid` at `base`.
    @inline(__always)
    static func writeUUID(_ uuid: UUID, into base: UnsafeMutablePointer<UInt8>) {
        withUnsafeBytes(of: uuid.uuid) { raw in
            hex.withUnsafeBufferPointer { hex in
                var j = 0
                for i in 0..<16 {
                    if i == 4 || i == 6 || i == 8 || i == 10 { base[j] = UInt8(ascii: "-"); j += 1 }
                    let byte = raw[i]
                    base[j] = hex[Int(byte >> 4)]
                    base[j + 1] = hex[Int(byte & 0x0F)]
                    j += 2
                }
            }
        }
    }

    @inline(__always)
    static func appendDate(_ ms: Int64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            ISO8601Millis.write(ms, into: buffer.baseAddress!)
            out.append(contentsOf: buffer)
        }
    }

    /// ``JSONBytes/appendNumber(_:to:)``.
    @inline(__always)
    static func appendNumber(_ value: Double, to out: inout [UInt8]) { JSONBytes.appendNumber(value, to: &out) }

    /// ``JSONBytes/appendEscaped(_:to:)-(String,_)``.
    @inline(__always)
    static func appendEscaped(_ text: String, to out: inout [UInt8]) { JSONBytes.appendEscaped(text, to: &out) }

    /// ``JSONBytes/appendEscaped(_:to:)-(UnsafeBufferPointer<UInt8>,_)``.
    @inline(__always)
    static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        JSONBytes.appendEscaped(bytes, to: &out)
    }
}
