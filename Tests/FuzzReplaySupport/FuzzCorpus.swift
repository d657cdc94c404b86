import Foundation
import StepSyncCore

/// The committed inputs of a fuzz target (`Fuzz/Corpus/<target>/` and `Fuzz/Crashes/<target>/`) and a small,
/// seeded mutator that derives more from them, for the replay tests of the core's and the importer's targets.
public struct FuzzCorpus: Sendable {
    /// One input file.
    public struct Input: CustomStringConvertible, Sendable {
        /// `Corpus/<target>/<file>` or `Crashes/<target>/<file>`.
        public var name: String
        /// Its bytes.
        public var bytes: [UInt8]
        public var description: String { name }
    }

    /// The corpus files, then the crash files, each in name order.
    public let corpus: [Input]
    /// The crash files.
    public let crashes: [Input]

    /// Reads the inputs of `target` from the package's `Fuzz/` folder.
    public init(_ target: String) throws {
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz")
        func inputs(_ folder: String) throws -> [Input] {
            let directory = fuzz.appendingPathComponent(folder).appendingPathComponent(target)
            guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
            return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
                .map { Input(name: "\(folder)/\(target)/\($0)", bytes: Array(try Data(contentsOf: directory.appendingPathComponent($0)))) }
        }
        corpus = try inputs("Corpus")
        crashes = try inputs("Crashes")
    }

    /// Every input: the corpus and the crashes.
    public var all: [Input] { corpus + crashes }

    /// `count` inputs derived from the corpus by seeded mutations (bit flips, bytes that matter to the parsers,
    /// insertions, deletions, duplications, truncation, splices): the same ones on every run.
    public func mutations(_ count: Int, seed: UInt64) -> [Input] {
        guard !corpus.isEmpty else { return [] }
        var rng = SplitMix64(seed: seed)
        let special = Array("\0\u{7F}\"\\/-+:.,TZ 09{}[]<>&;#x=\n\r\t\u{0B}".utf8) + [0xFF, 0xC3, 0xCC, 0x81, 0xED, 0xA0]
        return (0..<count).map { n in
            var bytes = corpus[Int(rng.next() % UInt64(corpus.count))].bytes
            for _ in 0...(rng.next() % 4) {
                let at = bytes.isEmpty ? 0 : Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 7 {
                case 0 where !bytes.isEmpty: bytes[at] ^= UInt8(1 << (rng.next() % 8))
                case 1 where !bytes.isEmpty: bytes[at] = special[Int(rng.next() % UInt64(special.count))]
                case 2: bytes.insert(special[Int(rng.next() % UInt64(special.count))], at: at)
                case 3 where !bytes.isEmpty: bytes.removeSubrange(at..<min(bytes.count, at + 1 + Int(rng.next() % 8)))
                case 4 where !bytes.isEmpty: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 1 + Int(rng.next() % 16))], at: at)
                case 5: bytes.removeSubrange(at...)
                default:
                    let other = corpus[Int(rng.next() % UInt64(corpus.count))].bytes
                    let from = other.isEmpty ? 0 : Int(rng.next() % UInt64(other.count))
                    bytes.replaceSubrange(at..., with: other[from...])
                }
            }
            return Input(name: "mutation \(n) of seed \(seed)", bytes: bytes)
        }
    }
}
