import Foundation

/// The JSON writing and reading the series parts share (``RoutePart``, ``ElectrocardiogramPart``).
enum SeriesDetails {
    /// Appends `"key":[v,v,null,…]` after a separator.
    static func numbers(_ name: StaticString, _ values: some Sequence<Double?>, to out: inout [UInt8]) {
        JSONBytes.separator(&out)
        JSONBytes.key(name, to: &out)
        out.append(UInt8(ascii: "["))
        var first = true
        for value in values {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            if let value { JSONBytes.appendNumber(value, to: &out) } else { out.append(contentsOf: "null".utf8) }
        }
        out.append(UInt8(ascii: "]"))
    }

    /// The bytes `value` takes in an array (without its comma), measured by writing it into `scratch` (kept by
    /// the caller, so a split writes each number once without a new array).
    static func width(_ value: Double?, scratch: inout [UInt8]) -> Int {
        guard let value else { return 4 }
        scratch.removeAll(keepingCapacity: true)
        JSONBytes.appendNumber(value, to: &scratch)
        return scratch.count
    }

    /// A part's `details` object up to its own fields: `{"<owner>":"uuid","part":i,"parts":n`, with room for
    /// `capacity` bytes.
    static func head(_ owner: StaticString, _ uuid: UUID, index: Int, count: Int, capacity: Int) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(capacity)
        Self.uuid(owner, uuid, to: &out)
        integer("part", Int64(index), to: &out)
        integer("parts", Int64(count), to: &out)
        return out
    }

    /// Appends `"key":"uuid"` after a separator.
    static func uuid(_ name: StaticString, _ uuid: UUID, to out: inout [UInt8]) {
        JSONBytes.member(name, string: uuid.uuidString, to: &out)
    }

    /// Appends `"key":n` after a separator.
    static func integer(_ name: StaticString, _ value: Int64, to out: inout [UInt8]) {
        JSONBytes.separator(&out)
        JSONBytes.key(name, to: &out)
        JSONBytes.appendInteger(value, to: &out)
    }

    /// Decodes `details` as `T`, naming the series in the error.
    static func decode<T: Decodable>(_ type: T.Type, from details: String, what: String) throws(SeriesDetailsError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(details.utf8))
        } catch let DecodingError.keyNotFound(key, _) {
            throw SeriesDetailsError(problem: "\(what) details have no \(key.stringValue)", field: key.stringValue)
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context),
                let DecodingError.dataCorrupted(context) {
            let field = context.codingPath.first?.stringValue
            throw SeriesDetailsError(problem: "\(what) details are not readable at \(field ?? "the top"): \(InputExcerpt.of(context.debugDescription))", field: field)
        } catch {
            throw SeriesDetailsError(problem: "\(what) details are not readable: \(InputExcerpt.of("\(error)"))")
        }
    }
}

/// Details of a series sample that are not a part of its kind (wrong keys, arrays of different lengths, an integer
/// or an instant out of range).
public struct SeriesDetailsError: Error, Hashable, CustomStringConvertible, Sendable {
    /// What is wrong, for people.
    public var problem: String
    /// The member of `details` at fault (`first`, `time`, `microvolts`), or `nil` when the whole object is (unreadable
    /// JSON, a key missing).
    public var field: String?
    /// Creates an error.
    public init(problem: String, field: String? = nil) {
        self.problem = problem
        self.field = field
    }
    /// The problem.
    public var description: String { problem }
}
