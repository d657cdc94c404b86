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
