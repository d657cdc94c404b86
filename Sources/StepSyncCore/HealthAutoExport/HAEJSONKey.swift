/// A JSON object key of any name, for reading a Health Auto Export body through `JSONDecoder`'s containers.
struct HAEJSONKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    static let data = HAEJSONKey("data")
    static let name = HAEJSONKey("name")
    static let units = HAEJSONKey("units")
}
