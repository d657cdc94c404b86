import Foundation
import StepSyncCore

/// Turns the attributes of one `<Record>` into a ``HealthSample`` with a stable, derived uuid, or says why the
/// record is skipped.
///
/// Records come in long runs of the same type, source, version, unit and device, so the strings for those
/// attributes are kept in small caches keyed by their raw bytes and reused rather than decoded again.
struct RecordDecoder {
    /// What a record became.
    enum Outcome {
        /// A sample to store once its children (beats, metadata) are read and it passes ``SampleValidation``.
        case sample(HealthSample, SampleKind)
        /// A record that is skipped: why, and what to tell people (the attribute, a ≤ 64-byte prefix of its value).
        case skip(SkipReason, String)
    }

    /// The namespace of the version-5 uuids of imported Apple Health records. Never change it: every stored
    /// record's identity depends on it.
    static let namespace = UUID(uuidString: "6F3C1B52-7A0E-4D8B-9E21-5C4A7B9D0E13")!

    /// Written in the uuid name in place of an absent string attribute. 0xFF never occurs in UTF-8, so an absent
    /// attribute and a present empty one (`sourceVersion=""`) name different records, while every record whose
    /// attributes are all present keeps the name (and uuid) it had before absent attributes were told apart.
    static let absent: UInt8 = 0xFF

    private var types = RecentValueCache<TypeInfo>(capacity: 16) { raw in
        let type = SampleType(XMLAttributes.decode(raw))
        return TypeInfo(type: type, kind: type.kind, valid: SampleValidation.typeProblem(type) == nil)
    }
    private var sources = StringCache()
    private var versions = StringCache()
    private var units = StringCache()
    private var labels = StringCache()
    private var devices = DeviceCache()
    private var name: [UInt8] = []
    private var nameStarts = NameStartCache()

    init() {
        name.reserveCapacity(512)
    }

    /// The type of the last record decoded (`nil` when it had none).
    private(set) var lastType: SampleType?
    /// Whether ``lastType`` passed ``SampleValidation/typeProblem(_:)`` (checked once per type cache entry, so the
    /// per-record validation need not scan the identifier again).
    private(set) var lastTypeValid = false

    /// The type of the last record decoded, cut to 128 bytes, for naming a skipped record.
    var lastTypeName: String? { lastType.map { String($0.rawValue.prefix(128)) } }

    /// Decodes a record's attributes; `line` is the line of its start tag.
    ///
    /// - Throws: ``XMLProblem`` only when the attributes are not well-formed XML (structural damage).
    mutating func decode(_ attributes: UnsafeRawBufferPointer, line: Int) throws -> Outcome {
        var typeRaw, sourceRaw, versionRaw, deviceRaw, unitRaw, valueRaw: UnsafeRawBufferPointer?
        var creationRaw, startRaw, endRaw: UnsafeRawBufferPointer?
        try XMLAttributes.forEach(attributes, line: line) { key, value in
            switch key.count {
            case 4:
                if XMLAttributes.equals(key, "type") { typeRaw = value }
                else if XMLAttributes.equals(key, "unit") { unitRaw = value }
            case 5:
                if XMLAttributes.equals(key, "value") { valueRaw = value }
            case 6:
                if XMLAttributes.equals(key, "device") { deviceRaw = value }
            case 7:
                if XMLAttributes.equals(key, "endDate") { endRaw = value }
            case 9:
                if XMLAttributes.equals(key, "startDate") { startRaw = value }
            case 10:
                if XMLAttributes.equals(key, "sourceName") { sourceRaw = value }
            case 12:
                if XMLAttributes.equals(key, "creationDate") { creationRaw = value }
            case 13:
                if XMLAttributes.equals(key, "sourceVersion") { versionRaw = value }
            default:
                break
            }
        }
        guard let typeRaw else {
            lastType = nil
            lastTypeValid = false
            return .skip(.missingAttribute, "it has no type attribute")
        }
        let typeEntry = types.entry(for: typeRaw)
        let info = typeEntry.value
        lastType = info.type
        lastTypeValid = info.valid
        guard let sourceRaw else { return .skip(.missingAttribute, "it has no sourceName attribute") }
        guard let startRaw else { return .skip(.missingAttribute, "it has no startDate attribute") }
        guard let endRaw else { return .skip(.missingAttribute, "it has no endDate attribute") }
        guard let start = HealthDate.parse(startRaw) else { return .skip(.unreadableDate, Self.notADate("startDate", startRaw)) }
        guard let end = HealthDate.parse(endRaw) else { return .skip(.unreadableDate, Self.notADate("endDate", endRaw)) }
        var creationMs = Int64.min
        if let creationRaw {
            guard let creation = HealthDate.parse(creationRaw) else {
                return .skip(.unreadableDate, Self.notADate("creationDate", creationRaw))
            }
            creationMs = creation.ms
        }

        let value: Double
        if let valueRaw {
            if let number = Self.number(valueRaw) {
                value = number
            } else if info.kind == .category {
                let label = labels.value(for: valueRaw)
                guard let code = CategoryValue.code(of: label) else {
                    if label.hasPrefix("HKCategoryValue") {
                        return .skip(.unknownCategoryValue, "value \(Self.quote(valueRaw)) is not a category value this importer knows")
                    }
                    return .skip(.unreadableValue, "value \(Self.quote(valueRaw)) is neither a number nor a category value")
                }
                value = code
            } else {
                return .skip(.unreadableValue, "value \(Self.quote(valueRaw)) is not a number")
            }
        } else if info.kind == .category {
            value = 0  // HKCategoryValueNotApplicable: mindful sessions, events such as HighHeartRateEvent.
        } else {
            return .skip(.missingValue, "it has no value attribute")
        }

        let source = sources.entry(for: sourceRaw)
        let version = versionRaw.map { versions.entry(for: $0) }
        let device = deviceRaw.map { devices.entry(for: $0) }
        // Categories have no unit: they store and name "" whatever the attribute says (as before).
        let unitEntry: (id: Int, value: String)? = info.kind == .category ? (NameStartKey.emptyUnit, "")
            : unitRaw.map { units.entry(for: $0) }

        // The identity: what stays the same when the same record is exported again (not the device's object
        // address, not the UTC offset dates are written in). An absent attribute is written as 0xFF. The name's
        // start (type, source, version, device, unit) repeats from record to record: its SHA-1 state is cached by
        // the cache entries it came from (`NameStartCache`), so a record builds and hashes only the rest of the
        // name — value and instants, ≤ 33 bytes on the stack. Same bytes hashed, same uuid.
        let key = NameStartKey(type: typeEntry.id, source: source.id, version: version?.id ?? NameStartKey.absent,
                               device: device?.id ?? NameStartKey.absent, unit: unitEntry?.id ?? NameStartKey.absent)
        let state: SHA1
        if let cached = nameStarts.state(for: key) {
            state = cached
        } else {
            name.removeAll(keepingCapacity: true)
            name.append(contentsOf: info.type.rawValue.utf8); name.append(0)
            name.append(contentsOf: source.value.utf8); name.append(0)
            Self.appendOptional(version?.value, to: &name)
            Self.appendOptional(device?.value.identity, to: &name)
            Self.appendOptional(unitEntry?.value, to: &name)
            state = name.withUnsafeBytes { NameBasedUUID.state(namespace: Self.namespace, prefix: $0) }
            nameStarts.add(state, for: key)
        }
        var suffix = (value.bitPattern.littleEndian, UInt64(bitPattern: start.ms).littleEndian,
                      UInt64(bitPattern: end.ms).littleEndian, UInt64(bitPattern: creationMs).littleEndian, Self.absent)
        let uuid = withUnsafeBytes(of: &suffix) {
            // 32 bytes of words, then the absent marker when the record has no value.
            NameBasedUUID.v5(resuming: state, suffix: UnsafeRawBufferPointer(rebasing: $0[0..<(valueRaw == nil ? 33 : 32)]))
        }
        let sourceName = source.value
        let sourceVersion = version?.value
        let unit = unitEntry?.value

        return .sample(HealthSample(
            uuid: uuid, type: info.type, startMs: start.ms, endMs: end.ms, utcOffsetSeconds: start.offsetSeconds,
            value: value, unit: unit ?? "", sourceName: sourceName, sourceBundleId: "", sourceVersion: sourceVersion,
            deviceName: device?.value.name, deviceModel: device?.value.model), info.kind)
    }

    /// Appends `text` and a NUL, or the absent marker and a NUL.
    @inline(__always)
    static func appendOptional(_ text: String?, to name: inout [UInt8]) {
        if let text { name.append(contentsOf: text.utf8) } else { name.append(absent) }
        name.append(0)
    }

    /// `startDate "2019-13-01 08:00:00 +0100" is not a date`.
    static func notADate(_ attribute: String, _ raw: UnsafeRawBufferPointer) -> String {
        "\(attribute) \(quote(raw)) is not a date"
    }

    /// The decoded value in quotes, cut to 64 bytes (errors never echo more of the input).
    static func quote(_ raw: UnsafeRawBufferPointer) -> String {
        let text = XMLAttributes.decode(UnsafeRawBufferPointer(rebasing: raw.prefix(64)))
        return "\"\(text)\"" + (raw.count > 64 ? "…" : "")
    }

    /// A number written in decimal (`72`, `0.0123`, `-5.5`, `1e-3`), or `nil`. Plain decimals take an exact fast
    /// path (an integer of at most 15 digits divided by a power of ten is correctly rounded); anything else goes
    /// through the standard library's parser. Numbers too large for a double come back infinite, and are then
    /// refused by ``SampleValidation`` as `value_not_finite`.
    static func number(_ b: UnsafeRawBufferPointer) -> Double? {
        let n = b.count
        guard n > 0 else { return nil }
        var i = 0
        var negative = false
        if b[0] == UInt8(ascii: "-") { negative = true; i = 1 }
        var mantissa: Int64 = 0
        var digits = 0
        var fraction = 0
        var seenPoint = false
        while i < n {
            let c = b[i]
            if c >= 48, c <= 57 {
                mantissa = mantissa &* 10 &+ Int64(c - 48)
                digits += 1
                if seenPoint { fraction += 1 }
            } else if c == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                break
            }
            i += 1
        }
        if i == n, digits > 0, digits <= 15 {
            let value = Double(mantissa) / powersOfTen[fraction]
            return negative ? -value : value
        }
        let text = String(decoding: b, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        // Only decimal notation: Double("nan"), Double("-inf") and hexadecimal floats are not what an export means;
        // and Double(String) reads a C string, so it would stop at a NUL byte ("72\0junk" is 72).
        let unsigned = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
        guard let first = unsigned.first, first == UInt8(ascii: ".") || (first >= 48 && first <= 57),
              !text.contains("x"), !text.contains("X"), !text.utf8.contains(0), let value = Double(text)
        else { return nil }
        return value
    }

    private static let powersOfTen: [Double] = (0...15).map { pow(10, Double($0)) }
}

/// The cache entries a record's name start came from (``RecentValueCache`` ids):
/// equal keys mean equal name starts.
struct NameStartKey: Equatable {
    /// An absent attribute (written as ``RecordDecoder/absent``).
    static let absent = -1
    /// A category's unit, always `""`.
    static let emptyUnit = -2

    var type: Int
    var source: Int
    var version: Int
    var device: Int
    var unit: Int
}

/// The SHA-1 states of a few recently seen name starts (namespace, type, source, version, device, unit): records
/// come in runs that share them, so each start is hashed once per run rather than once per record.
struct NameStartCache {
    private var keys: [NameStartKey] = []
    private var states: [SHA1] = []
    private var next = 0
    private var last = 0
    private static let capacity = 16

    /// The SHA-1 state after ``RecordDecoder/namespace`` and the name start `key` names, if it is cached.
    @inline(__always)
    mutating func state(for key: NameStartKey) -> SHA1? {
        if last < keys.count, keys[last] == key { return states[last] }
        for index in keys.indices where keys[index] == key {
            last = index
            return states[index]
        }
        return nil
    }

    /// Caches `state` for `key` (replacing the oldest entry when full).
    mutating func add(_ state: SHA1, for key: NameStartKey) {
        if keys.count < Self.capacity {
            keys.append(key); states.append(state)
            last = keys.count - 1
        } else {
            keys[next] = key; states[next] = state
            last = next
            next = (next + 1) % Self.capacity
        }
    }
}
