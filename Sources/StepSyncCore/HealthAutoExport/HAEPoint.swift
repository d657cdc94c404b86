/// One metric point of a Health Auto Export body (`{date, qty}`, `{date, Min, Avg, Max}`, `{date, systolic,
/// diastolic}`), every field optional and read leniently: a field of another JSON type than expected reads as absent,
/// so the point is skipped and counted by reason, never the body refused.
struct HAEPoint {
    /// `date` as an instant; `nil` when absent or not a date the app writes.
    var date: HAEDate.Instant?
    var units: String?
    var source: String?
    var qty: Double?
    var avg: Double?
    var min: Double?
    var max: Double?
    var systolic: Double?
    var diastolic: Double?

    /// The point at the scanner's `{` (fields other than these are skipped; a repeated field keeps its last value).
    /// The source is interned in `sources`.
    init(_ scanner: inout HAEBodyScanner, sources: inout InternedStrings.Entry) throws(WireError) {
        guard try scanner.openObject() else { return }
        repeat {
            switch try scanner.key() {
            case "date": date = try scanner.pointDate()
            case "qty": qty = try scanner.pointNumber()
            case "source": source = try scanner.pointString(&sources)
            case "units":
                var scratch = InternedStrings.Entry()
                units = try scanner.pointString(&scratch)
            case "Avg": avg = try scanner.pointNumber()
            case "Min": min = try scanner.pointNumber()
            case "Max": max = try scanner.pointNumber()
            case "systolic": systolic = try scanner.pointNumber()
            case "diastolic": diastolic = try scanner.pointNumber()
            default: try scanner.skipValue()
            }
        } while try scanner.nextMember()
    }

    /// The point held by a JSON object's members (``JSONValue``).
    init(_ object: [String: JSONValue]) {
        date = object["date"]?.string.flatMap(HAEDate.parse)
        units = object["units"]?.string
        source = object["source"]?.string
        qty = object["qty"]?.number
        avg = object["Avg"]?.number
        min = object["Min"]?.number
        max = object["Max"]?.number
        systolic = object["systolic"]?.number
        diastolic = object["diastolic"]?.number
    }
}
