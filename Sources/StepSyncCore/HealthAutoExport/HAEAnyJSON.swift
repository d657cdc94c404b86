import Foundation

/// Any JSON value as the `JSONSerialization` shapes (`[String: Any]`, `[Any]`, `String`, `Double`, `Bool`, `NSNull`),
/// for the rare, small parts of a body (sleep points, workouts) that ``HAESleepReader`` and ``HAEWorkoutReader`` read
/// as dictionaries. The metric points, which are most of a body, are read as ``HAEPoint`` instead.
struct HAEAnyJSON: Decodable {
    /// The value.
    var value: Any

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: HAEJSONKey.self) {
            var out: [String: Any] = [:]
            for key in object.allKeys { out[key.stringValue] = try object.decode(HAEAnyJSON.self, forKey: key).value }
            value = out
        } else if var array = try? decoder.unkeyedContainer() {
            var out: [Any] = []
            while !array.isAtEnd { out.append(try array.decode(HAEAnyJSON.self).value) }
            value = out
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                value = NSNull()
            } else if let string = try? single.decode(String.self) {
                value = string
            } else if let number = try? single.decode(Double.self) {
                value = number
            } else if let flag = try? single.decode(Bool.self) {
                value = flag
            } else {
                value = NSNull()
            }
        }
    }
}
