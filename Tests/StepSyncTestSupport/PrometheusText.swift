/// Prometheus' text exposition format as a test reads it back: every sample line (`name{label="value",…} number`)
/// and the families named by `# HELP` and `# TYPE` lines. Refuses a line it cannot read, so a malformed exposition
/// fails the test that reads it.
public struct PrometheusText: Sendable {
    /// One sample line.
    public struct Sample: Sendable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public struct Malformed: Error, CustomStringConvertible {
        public var description: String
    }

    public private(set) var samples: [Sample] = []
    /// Families with a `# HELP` line.
    public private(set) var helped: Set<String> = []
    /// Families with a `# TYPE` line, and their types.
    public private(set) var types: [String: String] = [:]
    public var typed: Set<String> { Set(types.keys) }
    /// The families the samples belong to (a histogram's `_bucket`, `_sum`, `_count` under its own name).
    public var families: Set<String> {
        Set(samples.map { sample in
            for suffix in ["_bucket", "_sum", "_count"] where sample.name.hasSuffix(suffix) {
                let base = String(sample.name.dropLast(suffix.count))
                if types[base] == "histogram" { return base }
            }
            return sample.name
        })
    }

    public init(_ text: String) throws {
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# HELP ") {
                helped.insert(String(line.dropFirst(7).prefix { $0 != " " }))
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2 else { throw Malformed(description: "bad TYPE line: \(line)") }
                types[String(parts[0])] = String(parts[1])
            } else if line.hasPrefix("#") {
                continue
            } else {
                samples.append(try Self.sample(line))
            }
        }
    }

    /// The value of the sample `name` whose labels are exactly `labels`, or `nil`.
    public subscript(_ name: String, _ labels: [String: String]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    private static func sample(_ line: Substring) throws -> Sample {
        var rest = line[...]
        let name = String(rest.prefix { $0 != "{" && $0 != " " })
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let key = String(rest.prefix { $0 != "=" })
                rest = rest.dropFirst(key.count)
                guard rest.hasPrefix("=\"") else { throw Malformed(description: "bad label in: \(line)") }
                rest = rest.dropFirst(2)
                var value = ""
                while let c = rest.first, c != "\"" {
                    if c == "\\" {
                        rest = rest.dropFirst()
                        guard let escaped = rest.first else { throw Malformed(description: "bad escape in: \(line)") }
                        value.append(escaped == "n" ? "\n" : escaped)
                    } else {
                        value.append(c)
                    }
                    rest = rest.dropFirst()
                }
                guard rest.first == "\"" else { throw Malformed(description: "unterminated label in: \(line)") }
                rest = rest.dropFirst()
                labels[key] = value
                if rest.first == "," { rest = rest.dropFirst() }
            }
            rest = rest.dropFirst()
        }
        let number = rest.trimmingPrefix(" ").split(separator: " ").first.map(String.init) ?? ""
        let value: Double? = switch number {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        default: Double(number)
        }
        guard !name.isEmpty, let value else { throw Malformed(description: "bad sample line: \(line)") }
        return Sample(name: name, labels: labels, value: value)
    }
}
