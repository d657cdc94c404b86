import Foundation

/// A Health Auto Export body read by `JSONDecoder` in one pass: each metric's points are turned into samples as they
/// are decoded (``HAEPoint``), so no object graph of the body is held — only the decoder's compact index of it and
/// the samples. The reader (its aggregation) comes in the decoder's `userInfo` under ``readerKey``.
struct HAEPayloadBody: Decodable {
    /// The `userInfo` key of the ``HAEPayloadReader``.
    static let readerKey = CodingUserInfoKey(rawValue: "stepsync.hae.reader")!

    /// What the body read to.
    var reading = HAEReading()

    init(from decoder: any Decoder) throws {
        guard let reader = decoder.userInfo[Self.readerKey] as? HAEPayloadReader else {
            throw HAEPayloadError(field: "body", "cannot be read without a reader")
        }
        guard let root = try? decoder.container(keyedBy: HAEJSONKey.self) else {
            throw HAEPayloadError(field: "body", "is not a JSON object")
        }
        guard let data = try? root.nestedContainer(keyedBy: HAEJSONKey.self, forKey: .data) else {
            throw HAEPayloadError(field: "data", "is missing or not an object; the app sends {\"data\":{\"metrics\":[…]}}")
        }
        for key in data.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            switch key.stringValue {
            case "metrics":
                guard var metrics = try? data.nestedUnkeyedContainer(forKey: key) else {
                    throw HAEPayloadError(field: "data.metrics", "is not an array")
                }
                while !metrics.isAtEnd {
                    let i = metrics.currentIndex
                    guard let metric = try? metrics.nestedContainer(keyedBy: HAEJSONKey.self) else {
                        throw HAEPayloadError(field: "data.metrics[\(i)]", "is not an object")
                    }
                    try Self.readMetric(metric, at: i, reader: reader, into: &reading)
                }
            case "workouts":
                guard var workouts = try? data.nestedUnkeyedContainer(forKey: key) else {
                    throw HAEPayloadError(field: "data.workouts", "is not an array")
                }
                while !workouts.isAtEnd {
                    let i = workouts.currentIndex
                    let workout = try workouts.decode(HAEJSON.self)
                    try HAEWorkoutReader(reader: reader).read(workout, at: i, into: &reading)
                }
            default:
                let count = (try? data.nestedUnkeyedContainer(forKey: key))?.count ?? 1
                reading.notStored[String(key.stringValue.prefix(64)), default: 0] += count
            }
        }
    }

    private static func readMetric(_ metric: KeyedDecodingContainer<HAEJSONKey>, at i: Int, reader: HAEPayloadReader,
                                   into reading: inout HAEReading) throws {
        let field = "data.metrics[\(i)]"
        guard let name = try? metric.decode(String.self, forKey: .name) else {
            throw HAEPayloadError(field: field + ".name", "is missing or not a string")
        }
        guard var points = try? metric.nestedUnkeyedContainer(forKey: .data) else {
            throw HAEPayloadError(field: field + ".data", "is missing or not an array")
        }
        let units = (try? metric.decode(String.self, forKey: .units)) ?? ""
        let (type, known) = HAEMetricTable.type(of: name)
        if !known, name != "blood_pressure", !reading.unknownMetrics.contains(name) {
            reading.unknownMetrics.append(String(name.prefix(128)))
        }
        while !points.isAtEnd {
            let k = points.currentIndex
            if name == "sleep_analysis" {
                guard let point = try points.decode(HAEJSON.self).object else {
                    throw HAEPayloadError(field: "\(field).data[\(k)]", "is not an object")
                }
                HAESleepReader(reader: reader).read(point, metric: name, index: k, into: &reading)
                continue
            }
            guard let object = try? points.nestedContainer(keyedBy: HAEJSONKey.self) else {
                throw HAEPayloadError(field: "\(field).data[\(k)]", "is not an object")
            }
            let point = HAEPoint(object)
            if name == "blood_pressure" {
                reader.readBloodPressure(point, metric: name, index: k, into: &reading)
            } else {
                reader.readPoint(point, type: type, units: units, metric: name, index: k, into: &reading)
            }
        }
    }
}
