import Foundation

/// The uuid of a Health Auto Export point, which carries none: a name-based UUID (``NameBasedUUID``, version 5)
/// of the point's type, source, bucket start, bucket length and role, so that the app's re-sends of a point name it
/// the same way (the sink then finds a duplicate, or a grown bucket to replace) and nothing else does.
///
/// The name is `type ␟ source ␟ startMs ␟ lengthMs ␟ role` (U+001F between fields); `role` tells apart the samples
/// one point becomes (`min`/`max` of a heart-rate point, a summarized night's stages) and is empty otherwise.
public enum HAEPointIdentity {
    /// The namespace of every Health Auto Export point's uuid.
    public static let namespace = UUID(uuidString: "6B1D3E0A-4C51-5F7E-9A0B-5E7A1C0D2F34")!

    /// The uuid of a point of `type` from `source` covering `[startMs, startMs + lengthMs)`.
    public static func uuid(type: SampleType, source: String, startMs: Int64, lengthMs: Int64, role: String = "")
        -> UUID
    {
        NameBasedUUID.v5(namespace: namespace,
                         name: "\(type.rawValue)\u{1F}\(source)\u{1F}\(startMs)\u{1F}\(lengthMs)\u{1F}\(role)")
    }

    /// The SHA-1 state after the namespace and the name's `type ␟ source ␟` prefix, for ``uuid(resuming:startMs:lengthMs:role:)``:
    /// the points of one metric and source share it.
    public static func prefix(type: SampleType, source: String) -> SHA1 {
        let prefix = Array("\(type.rawValue)\u{1F}\(source)\u{1F}".utf8)
        return prefix.withUnsafeBytes { NameBasedUUID.state(namespace: namespace, prefix: $0) }
    }

    /// ``uuid(type:source:startMs:lengthMs:role:)`` continued from its ``prefix(type:source:)``: the same uuid,
    /// without building the name.
    public static func uuid(resuming state: SHA1, startMs: Int64, lengthMs: Int64, role: String) -> UUID {
        var role = role
        return role.withUTF8 { role in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48 + role.count) { buffer in
                var n = 0
                func decimal(_ value: Int64) {
                    if value < 0 { buffer[n] = UInt8(ascii: "-"); n += 1 }
                    var v = value.magnitude
                    let start = n
                    repeat {
                        buffer[n] = UInt8(ascii: "0") + UInt8(v % 10)
                        v /= 10
                        n += 1
                    } while v > 0
                    var a = start, b = n - 1
                    while a < b { buffer.swapAt(a, b); a += 1; b -= 1 }
                }
                decimal(startMs)
                buffer[n] = 0x1F; n += 1
                decimal(lengthMs)
                buffer[n] = 0x1F; n += 1
                for byte in role { buffer[n] = byte; n += 1 }
                return NameBasedUUID.v5(resuming: state, suffix: UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[0..<n])))
            }
        }
    }

    /// The uuid of a version-1 workout (which has no `id`): its activity name, start and end.
    public static func workoutUUID(name: String, startMs: Int64, endMs: Int64) -> UUID {
        NameBasedUUID.v5(namespace: namespace, name: "workout\u{1F}\(name)\u{1F}\(startMs)\u{1F}\(endMs)")
    }

    /// The device a source name is (for the daily-totals priority): `Apple Watch` when it names one (`Anna’s Apple
    /// Watch`, with a curly apostrophe or a no-break space), `iPhone` or `iPad` likewise, else `nil`. Of several
    /// sources joined with `|`, the first one that names a device.
    public static func deviceName(ofSource source: String) -> String? {
        for part in source.split(separator: "|") {
            let text = part.replacingOccurrences(of: "\u{00A0}", with: " ")
                .replacingOccurrences(of: "\u{202F}", with: " ").lowercased()
            if text.contains("apple watch") { return "Apple Watch" }
            if text.contains("iphone") { return "iPhone" }
            if text.contains("ipad") { return "iPad" }
        }
        return nil
    }
}
