import Foundation
import StepSyncCore

/// Turns the attributes of one `<Record>` into a ``HealthSample`` with a stable, derived uuid.
///
/// Records come in long runs of the same type, source, version, unit and device, so the strings for those
/// attributes are kept in small caches keyed by their raw bytes and reused rather than decoded again.
struct RecordDecoder {
    /// What a record became.
    enum Outcome {
        /// A sample to store.
        case sample(HealthSample)
        /// A category record whose value label this importer does not know; it is skipped and counted.
        case unknownCategoryValue(SampleType)
    }

    /// The namespace of the version-5 uuids of imported Apple Health records. Never change it: every stored
    /// record's identity depends on it.
    static let namespace = UUID(uuidString: "6F3C1B52-7A0E-4D8B-9E21-5C4A7B9D0E13")!

    private var types = StringCache()
    private var sources = StringCache()
    private var versions = StringCache()
    private var units = StringCache()
    private var labels = StringCache()
    private var devices = DeviceCache()
    private var name: [UInt8] = []

    init() {
        name.reserveCapacity(512)
    }

    /// Decodes a record's attributes; `line` is the line of its start tag, for errors.
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
        func missing(_ attribute: String) -> XMLProblem {
            XMLProblem(kind: .invalidRecord, line: line, reason: "Record has no \(attribute) attribute")
        }
        guard let typeRaw else { throw missing("type") }
        guard let sourceRaw else { throw missing("sourceName") }
        guard let startRaw else { throw missing("startDate") }
        guard let endRaw else { throw missing("endDate") }
        let type = SampleType(types.string(for: typeRaw))
        let isCategory = type.rawValue.hasPrefix("HKCategoryTypeIdentifier")

        func date(_ raw: UnsafeRawBufferPointer, _ attribute: String) throws -> (ms: Int64, offsetSeconds: Int32?) {
            guard let date = HealthDate.parse(raw) else {
                throw XMLProblem(kind: .invalidRecord, line: line,
                                 reason: "Record \(attribute) \"\(XMLProblem.excerpt(raw))\" is not a date")
            }
            return date
        }
        let start = try date(startRaw, "startDate")
        let end = try date(endRaw, "endDate")
        let creation = try creationRaw.map { try date($0, "creationDate") }
        guard end.ms >= start.ms else {
            throw XMLProblem(kind: .invalidRecord, line: line, reason: "Record endDate \"\(XMLProblem.excerpt(endRaw))\" is before its startDate \"\(XMLProblem.excerpt(startRaw))\"")
        }

        var value: Double
        guard let valueRaw else { throw missing("value") }
        if let number = Self.number(valueRaw) {
            value = number
        } else if isCategory {
            let label = labels.string(for: valueRaw)
            guard let code = CategoryValue.code(of: label) else {
                if label.hasPrefix("HKCategoryValue") { return .unknownCategoryValue(type) }
                throw XMLProblem(kind: .invalidRecord, line: line,
                                 reason: "Record value \"\(XMLProblem.excerpt(label))\" is neither a number nor a category value")
            }
            value = code
        } else {
            throw XMLProblem(kind: .invalidRecord, line: line,
                             reason: "Record value \"\(XMLProblem.excerpt(valueRaw))\" is not a number")
        }

        let sourceName = sources.string(for: sourceRaw)
        let sourceVersion = versionRaw.map { versions.string(for: $0) }
        let unit = isCategory ? "" : unitRaw.map { units.string(for: $0) } ?? ""
        let device = deviceRaw.map { devices.device(for: $0) }

        // The identity: what stays the same when the same record is exported again (not the device's object
        // address, not the UTC offset dates are written in).
        name.removeAll(keepingCapacity: true)
        name.append(contentsOf: type.rawValue.utf8); name.append(0)
        name.append(contentsOf: sourceName.utf8); name.append(0)
        name.append(contentsOf: (sourceVersion ?? "").utf8); name.append(0)
        name.append(contentsOf: (device?.identity ?? "").utf8); name.append(0)
        name.append(contentsOf: unit.utf8); name.append(0)
        for word in [value.bitPattern, UInt64(bitPattern: start.ms), UInt64(bitPattern: end.ms),
                     UInt64(bitPattern: creation?.ms ?? .min)] {
            withUnsafeBytes(of: word.littleEndian) { name.append(contentsOf: $0) }
        }
        let uuid = name.withUnsafeBytes { NameBasedUUID.v5(namespace: Self.namespace, name: $0) }

        return .sample(HealthSample(
            uuid: uuid, type: type, startMs: start.ms, endMs: end.ms, utcOffsetSeconds: start.offsetSeconds,
            value: value, unit: unit, sourceName: sourceName, sourceBundleId: "", sourceVersion: sourceVersion,
            deviceName: device?.name, deviceModel: device?.model))
    }

    /// A finite number written in decimal, or `nil`. Plain decimals (`72`, `0.0123`, `-5.5`) take an exact fast
    /// path (an integer of at most 15 digits divided by a power of ten is correctly rounded); anything else goes
    /// through the standard library's parser.
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
        guard let value = Double(String(decoding: b, as: UTF8.self).trimmingCharacters(in: .whitespaces)),
              value.isFinite
        else { return nil }
        return value
    }

    private static let powersOfTen: [Double] = (0...15).map { pow(10, Double($0)) }
}

/// A few recently seen raw attribute values and their decoded strings.
private struct StringCache {
    private var keys: [[UInt8]] = []
    private var values: [String] = []
    private var next = 0
    private static let capacity = 8

    mutating func string(for raw: UnsafeRawBufferPointer) -> String {
        for index in keys.indices where Self.same(keys[index], raw) { return values[index] }
        let value = XMLAttributes.decode(raw)
        if keys.count < Self.capacity {
            keys.append(Array(raw)); values.append(value)
        } else {
            keys[next] = Array(raw); values[next] = value
            next = (next + 1) % Self.capacity
        }
        return value
    }

    @inline(__always)
    static func same(_ key: [UInt8], _ raw: UnsafeRawBufferPointer) -> Bool {
        guard key.count == raw.count else { return false }
        return key.withUnsafeBytes { k in
            guard let a = k.baseAddress, let b = raw.baseAddress else { return true }
            return memcmp(a, b, raw.count) == 0
        }
    }
}

/// A few recently seen `device` attributes and what they say.
private struct DeviceCache {
    private var keys: [[UInt8]] = []
    private var values: [HealthDevice] = []
    private var next = 0
    private static let capacity = 8

    mutating func device(for raw: UnsafeRawBufferPointer) -> HealthDevice {
        for index in keys.indices where StringCache.same(keys[index], raw) { return values[index] }
        let value = HealthDevice(description: XMLAttributes.decode(raw))
        if keys.count < Self.capacity {
            keys.append(Array(raw)); values.append(value)
        } else {
            keys[next] = Array(raw); values[next] = value
            next = (next + 1) % Self.capacity
        }
        return value
    }
}
