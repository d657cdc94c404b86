import Foundation
import StepSyncCore

/// A few recently seen raw attribute values and what they decode to, the oldest replaced first when full.
///
/// Every entry gets an id of its own when it is added (never reused by this cache), so an id names one decoded
/// value for as long as the decoder lives: ``NameStartCache`` keys on ids instead of comparing the strings.
struct RecentValueCache<Value> {
    private var keys: [[UInt8]] = []
    private var values: [Value] = []
    private var ids: [Int] = []
    private var next = 0
    private var nextId = 0
    private let capacity: Int
    private let decode: @Sendable (UnsafeRawBufferPointer) -> Value

    /// A cache of `capacity` entries whose values `decode` makes from the raw bytes.
    init(capacity: Int, decode: @escaping @Sendable (UnsafeRawBufferPointer) -> Value) {
        self.capacity = capacity
        self.decode = decode
    }

    /// The decoded value of `raw`.
    mutating func value(for raw: UnsafeRawBufferPointer) -> Value { entry(for: raw).value }

    /// The decoded value of `raw` and the id of its entry.
    mutating func entry(for raw: UnsafeRawBufferPointer) -> (id: Int, value: Value) {
        for index in keys.indices where Self.same(keys[index], raw) { return (ids[index], values[index]) }
        let value = decode(raw)
        nextId += 1
        if keys.count < capacity {
            keys.append(Array(raw)); values.append(value); ids.append(nextId)
        } else {
            keys[next] = Array(raw); values[next] = value; ids[next] = nextId
            next = (next + 1) % capacity
        }
        return (nextId, value)
    }

    @inline(__always)
    private static func same(_ key: [UInt8], _ raw: UnsafeRawBufferPointer) -> Bool {
        guard key.count == raw.count else { return false }
        return key.withUnsafeBytes { k in
            guard let a = k.baseAddress, let b = raw.baseAddress else { return true }
            return memcmp(a, b, raw.count) == 0
        }
    }
}

/// Attribute strings (source names, versions, units, labels): 8 entries.
typealias StringCache = RecentValueCache<String>

/// `device` attributes and what they say: 8 entries.
typealias DeviceCache = RecentValueCache<HealthDevice>

extension RecentValueCache where Value == String {
    /// An empty cache of 8 decoded strings.
    init() { self.init(capacity: 8) { XMLAttributes.decode($0) } }
}

extension RecentValueCache where Value == HealthDevice {
    /// An empty cache of 8 decoded devices.
    init() { self.init(capacity: 8) { HealthDevice(description: XMLAttributes.decode($0)) } }
}

/// A `type` attribute's ``SampleType``, its kind, and whether it passes ``SampleValidation/typeProblem(_:)``:
/// computed once per type, not per record.
///
/// Its cache has 16 entries: a Watch interleaves more than 8 types in time order (steps, distance, heart rate,
/// energies, flights, HRV, sleep, stand, mindful…), and with 8 the first-in-first-out replacement missed on 19 % of
/// the benchmark export's records (a new `String` and `SampleType` each time).
struct TypeInfo {
    var type: SampleType
    var kind: SampleKind
    var valid: Bool
}
