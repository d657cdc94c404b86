import StepSyncCore
import Testing

/// Query strings decoded as every HTTP library encodes them (`application/x-www-form-urlencoded`).
@Suite("Form-encoded query strings")
struct FormQueryTests {
    @Test("+ is a space and %XX a byte, in names and values; the first of a repeated name wins", arguments: [
        ("priority=Apple+Watch,iPhone", "priority", "Apple Watch,iPhone"),
        ("priority=Apple%20Watch%2CiPhone", "priority", "Apple Watch,iPhone"),
        ("priority=Apple%2BWatch", "priority", "Apple+Watch"),
        ("tz=America%2FNew_York&x=1", "tz", "America/New_York"),
        ("a+b=c+d", "a b", "c d"),
        ("name=%C3%A9t%C3%A9", "name", "été"),
        ("name=%c3%a9", "name", "é"),
        ("k=1&k=2", "k", "1"),
        ("flag", "flag", ""),
        ("k=a=b", "k", "a=b"),
        ("&&k=v&&", "k", "v"),
        ("k=%F0%9F%98%80", "k", "😀"),
    ])
    func decodes(query: String, name: String, value: String) throws {
        #expect(try FormQuery(parsing: query[...])[name] == value)
    }

    @Test("a bad escape or bad UTF-8 is refused naming the parameter", arguments: [
        ("from=2025-05-01&priority=100%", "priority", "invalid percent-escape \"%\""),
        ("priority=a%2", "priority", "invalid percent-escape \"%2\""),
        ("priority=a%zz", "priority", "invalid percent-escape \"%zz\""),
        ("priority=%FF", "priority", "not valid UTF-8"),
        ("priority=%C3", "priority", "not valid UTF-8"),
        ("priority=%ED%A0%80", "priority", "not valid UTF-8"),
        ("pri%zzority=1", "pri%zzority", "invalid percent-escape"),
    ])
    func refuses(query: String, parameter: String, problem: String) {
        #expect {
            try FormQuery(parsing: query[...])
        } throws: { error in
            guard let error = error as? FormQueryError else { return false }
            return error.parameter == parameter && error.problem.contains(problem)
        }
    }

    @Test("what Python's urlencode, URLSearchParams and curl --data-urlencode write decodes back to the original")
    func roundTripsTheWebsEncoding() throws {
        // Each library's default form encoding of one value: space as +, everything else but unreserved as %XX.
        let original = "Apple Watch, iPhone & \"Ännas\" 50% + more/ü?=#"
        var encoded = ""
        for byte in original.utf8 {
            switch byte {
            case UInt8(ascii: " "): encoded += "+"
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                 UInt8(ascii: "*"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default: encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        #expect(try FormQuery(parsing: ("x=" + encoded)[...])["x"] == original)
    }

    @Test("no query and an empty one have no parameters")
    func empty() throws {
        #expect(try FormQuery(parsing: nil).pairs.isEmpty)
        #expect(try FormQuery(parsing: ""[...]).pairs.isEmpty)
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
