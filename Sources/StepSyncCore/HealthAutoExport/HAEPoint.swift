/// One metric point of a Health Auto Export body (`{date, qty}`, `{date, Min, Avg, Max}`, `{date, systolic,
/// diastolic}`), every field optional and read leniently: a field of another JSON type than expected is kept as
/// ``Value/other``, so the point is skipped and counted by reason, never the body refused.
struct HAEPoint {
    /// A field's value: `nil` in a point when the field is absent.
    enum Value {
        case string(String)
        case number(Double)
        /// `null`, an object, an array, or a number `Double` cannot hold.
        case other

        /// The string, if the value is one.
        var string: String? {
            if case .string(let text) = self { return text }
            return nil
        }

        /// A number, or a string holding one (`"NaN"` reads as not finite); `nil` otherwise.
        var number: Double? {
            switch self {
            case .number(let value): value
            case .string(let text): Double(text.prefix(64))
            case .other: nil
            }
        }
    }

    var date: Value?
    var units: Value?
    var source: Value?
    var qty: Value?
    var avg: Value?
    var min: Value?
    var max: Value?
    var systolic: Value?
    var diastolic: Value?

    /// The point held by `object` (fields other than these are ignored).
    init(_ object: KeyedDecodingContainer<HAEJSONKey>) {
        for key in object.allKeys {
            switch key.stringValue {
            case "date": date = Self.value(object, key, number: false)
            case "qty": qty = Self.value(object, key, number: true)
            case "source": source = Self.value(object, key, number: false)
            case "units": units = Self.value(object, key, number: false)
            case "Avg": avg = Self.value(object, key, number: true)
            case "Min": min = Self.value(object, key, number: true)
            case "Max": max = Self.value(object, key, number: true)
            case "systolic": systolic = Self.value(object, key, number: true)
            case "diastolic": diastolic = Self.value(object, key, number: true)
            default: continue
            }
        }
    }

    /// The point held by a JSON object's members (``HAEJSON``).
    init(_ object: [String: HAEJSON]) {
        date = object["date"].map(Self.value)
        units = object["units"].map(Self.value)
        source = object["source"].map(Self.value)
        qty = object["qty"].map(Self.value)
        avg = object["Avg"].map(Self.value)
        min = object["Min"].map(Self.value)
        max = object["Max"].map(Self.value)
        systolic = object["systolic"].map(Self.value)
        diastolic = object["diastolic"].map(Self.value)
    }

    /// `key`'s value, trying first the type it most often has (a failed try costs an error's allocation).
    private static func value(_ object: KeyedDecodingContainer<HAEJSONKey>, _ key: HAEJSONKey, number: Bool) -> Value {
        if number, let value = try? object.decode(Double.self, forKey: key) { return .number(value) }
        if let text = try? object.decode(String.self, forKey: key) { return .string(text) }
        if !number, let value = try? object.decode(Double.self, forKey: key) { return .number(value) }
        if let flag = try? object.decode(Bool.self, forKey: key) { return .number(flag ? 1 : 0) }
        return .other
    }

    private static func value(_ json: HAEJSON) -> Value {
        switch json {
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        case .bool(let flag): .number(flag ? 1 : 0)
        case .object, .array, .null: .other
        }
    }
}
