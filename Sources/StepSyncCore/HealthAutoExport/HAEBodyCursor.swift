import Foundation

/// Where the reading of a mapped Health Auto Export body (``HAEBodyMap``) stopped, and what it learned on the way
/// that the next batch reuses: the last source string, each source's device, each (type, source)'s hashed uuid
/// prefix. It holds offsets, never the body's bytes, so it lives across the awaits between batches.
public struct HAEBodyCursor: Sendable {
    /// The part being read (``HAEBodyMap/parts``).
    var part = 0
    /// Inside a metric's points: the offset of the next point and its index; `nil` at the part's start.
    var point: (offset: Int, index: Int)?
    /// The last source string read from a point.
    var sources = InternedStrings.Entry()
    /// The device each source names (``HAEPointIdentity/deviceName(ofSource:)``).
    var devices: [String: String?] = [:]
    /// The SHA-1 state after each (type, source)'s name prefix (``HAEPointIdentity/prefix(type:source:)``).
    var prefixes: [PrefixKey: SHA1] = [:]

    /// A (type, source) pair.
    struct PrefixKey: Hashable {
        var type: SampleType
        var source: String
    }

    /// A cursor at the start of a body.
    public init() {}

    /// Whether every part of `map` has been read.
    public func isAtEnd(of map: HAEBodyMap) -> Bool { part >= map.parts.count }

    /// The last source ``device(ofSource:)`` answered for, and its device: most points of a metric repeat it.
    private var lastDevice: (source: String, device: String?)?
    /// The last (type, source) ``uuid(type:source:startMs:lengthMs:role:)`` hashed, and its state.
    private var lastPrefix: (key: PrefixKey, state: SHA1)?

    /// The device `source` names, remembered.
    mutating func device(ofSource source: String) -> String? {
        // Interned sources are the same string, which `==` finds at once.
        if let lastDevice, lastDevice.source == source { return lastDevice.device }
        let device: String?
        if let known = devices[source] {
            device = known
        } else {
            device = HAEPointIdentity.deviceName(ofSource: source)
            if devices.count < 1_000 { devices[source] = device }
        }
        lastDevice = (source, device)
        return device
    }

    /// The uuid of a point of `type` from `source` covering `[startMs, startMs + lengthMs)` in `role`
    /// (``HAEPointIdentity/uuid(type:source:startMs:lengthMs:role:)``), its name's prefix hashed once per pair.
    mutating func uuid(type: SampleType, source: String, startMs: Int64, lengthMs: Int64, role: String) -> UUID {
        let key = PrefixKey(type: type, source: source)
        let state: SHA1
        if let lastPrefix, lastPrefix.key == key {
            state = lastPrefix.state
        } else if let known = prefixes[key] {
            state = known
        } else {
            state = HAEPointIdentity.prefix(type: type, source: source)
            if prefixes.count < 1_000 { prefixes[key] = state }
        }
        lastPrefix = (key, state)
        return HAEPointIdentity.uuid(resuming: state, startMs: startMs, lengthMs: lengthMs, role: role)
    }
}
