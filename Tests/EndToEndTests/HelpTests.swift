import ArgumentParser
import Foundation
@testable import StepSyncCLI
import Testing
import StepSyncTestSupport

/// Issue 16: every command's `--help` has an example that parses, the README's commands and options are the binary's,
/// and shell completions are generated.
@Suite("--help, the README and shell completions")
struct HelpTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The subcommands `stepsync --help` lists (the real binary).
    static func subcommands() async throws -> [String] {
        let (status, help) = try await StepSyncProcess.run(["--help"])
        #expect(status == 0)
        let lines = help.stdout.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "SUBCOMMANDS:") else { return [] }
        var names: [String] = []
        for line in lines[(start + 1)...] {
            if line.trimmingCharacters(in: .whitespaces).isEmpty { break }
            // "  name   abstract": a name at two spaces; wrapped abstracts are indented further.
            if line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first {
                names.append(String(name))
            }
        }
        return names
    }

    /// Every command and nested command (`clients list`) with its path of names, the root's subcommands first.
    static func commandTypes() -> [(path: [String], type: any ParsableCommand.Type)] {
        func walk(_ path: [String], _ type: any ParsableCommand.Type) -> [(path: [String], type: any ParsableCommand.Type)] {
            [(path: path, type: type)] + type.configuration.subcommands.flatMap { walk(path + [$0._commandName], $0) }
        }
        return StepSyncCommand.allSubcommands.flatMap { walk([$0._commandName], $0) }
    }

    /// The `--options` of `stepsync <command…> --help` (the real binary), `--help` included.
    static func options(of command: [String]) async throws -> Set<String> {
        let (status, help) = try await StepSyncProcess.run(command + ["--help"])
        #expect(status == 0, "\(command) --help: \(help.stderr)")
        return Self.declaredOptions(in: help.stdout).union(["--help"])
    }

    /// The options a `--help` text declares: the `--name` that starts a line of its OPTIONS section (`-n, --name`
    /// too), not those its descriptions mention.
    static func declaredOptions(in help: String) -> Set<String> {
        let section = help.components(separatedBy: "OPTIONS:").dropFirst().joined()
        return Set(section.components(separatedBy: "\n").compactMap { line in
            line.firstMatch(of: /^\s+(?:-[a-zA-Z], )?(--[a-z][a-z0-9-]*)/).map { String($0.output.1) }
        })
    }

    /// Every `--name` in `text`.
    static func optionNames(in text: String) -> Set<String> {
        Set(text.matches(of: /--[a-z][a-z0-9-]*/).map { String($0.output) })
    }

    /// `stepsync sync --json  # comment` → ["sync", "--json"]: shell words (single and double quotes), the leading
    /// `stepsync` and any `VAR=value` before it dropped. `nil` when the line is not a stepsync command.
    static func words(of line: String) -> [String]? {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c
                inWord = true
            } else if c == "#", !inWord {
                break
            } else if c == " " {
                if inWord { words.append(current); current = ""; inWord = false }
            } else {
                current.append(c)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        // A redirection or a second command ends this one.
        if let end = words.firstIndex(where: { [">", ">>", "|", "&&", ";"].contains($0) }) { words.removeSubrange(end...) }
        while let first = words.first, first.contains("="), !first.hasPrefix("-") { words.removeFirst() }
        guard words.first == "stepsync" else { return nil }
        return Array(words.dropFirst())
    }

    /// Whether the line sets an environment variable for the command (its options may then depend on it).
    static func setsEnvironment(_ line: String) -> Bool {
        line.trimmingCharacters(in: .whitespaces).range(of: #"^[A-Z_]+=\S+\s+stepsync"#, options: .regularExpression) != nil
    }

    /// The example lines (`stepsync …`) of `text`.
    static func exampleLines(in text: String) -> [String] {
        text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("stepsync ") || $0.range(of: #"^[A-Z_]+=\S+\s+stepsync "#, options: .regularExpression) != nil }
    }

    /// Parses `words` as the binary would (options, values and `validate()`), without running anything.
    static func parseProblem(_ words: [String]) -> String? {
        do {
            _ = try StepSyncCommand.parseAsRoot(words)
            return nil
        } catch {
            return StepSyncCommand.message(for: error)
        }
    }

    @Test("every command's --help shows an example, and every example in it parses")
    func everyHelpHasAnExample() async throws {
        let commands = Self.commandTypes()
        let listed = try await Self.subcommands()
        #expect(Set(commands.map { $0.path[0] }) == Set(listed))
        let all: [(path: [String], type: any ParsableCommand.Type)] = [(path: [], type: StepSyncCommand.self)] + commands
        for (path, type) in all {
            let name = (["stepsync"] + path).joined(separator: " ")
            // Unwrapped, so each example is one line.
            let help = StepSyncCommand.helpMessage(for: type, includeHidden: false, columns: 1_000)
            let examples = Self.exampleLines(in: help)
            #expect(help.contains("Example"), "\(name) --help has no example")
            #expect(!examples.isEmpty, "\(name) --help has no `stepsync …` example line")
            for line in examples where !Self.setsEnvironment(line) {
                let words = try #require(Self.words(of: line))
                if words.first?.hasPrefix("-") == true { continue }  // --generate-completion-script: tested below
                if !path.isEmpty { #expect(words.first == path[0], "\(name): \(line)") }
                #expect(Self.parseProblem(words) == nil, "the example `\(line)` does not parse: \(Self.parseProblem(words) ?? "")")
            }
        }
    }

    @Test("at 80 columns every example of every --help stays on one line (none wraps mid-command)")
    func examplesFitEightyColumns() {
        let all: [(path: [String], type: any ParsableCommand.Type)] = [(path: [], type: StepSyncCommand.self)] + Self.commandTypes()
        for (path, type) in all {
            let name = (["stepsync"] + path).joined(separator: " ")
            let wide = StepSyncCommand.helpMessage(for: type, includeHidden: false, columns: 1_000)
            let narrow = StepSyncCommand.helpMessage(for: type, includeHidden: false, columns: 80)
            let narrowLines = Set(narrow.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
            for example in Self.exampleLines(in: wide) {
                #expect(narrowLines.contains(example), "\(name): `\(example)` wraps at 80 columns")
            }
        }
    }

    @Test("no command's discussion has a run of spaces inside a line (a lost line continuation in its source)")
    func discussionsHaveNoSpaceRuns() {
        let all: [(path: [String], type: any ParsableCommand.Type)] = [(path: [], type: StepSyncCommand.self)] + Self.commandTypes()
        for (path, type) in all {
            let name = (["stepsync"] + path).joined(separator: " ")
            for line in type.configuration.discussion.split(separator: "\n") {
                let text = line.drop { $0 == " " }
                // Aligned `# comment`s after an example are deliberate.
                #expect(!text.contains(/\ {3,}[^ #]/), "\(name): \"\(line)\"")
            }
        }
    }

    @Test("the README's command table has a row for every command, and its options and examples are the binary's")
    func readmeMatchesHelp() async throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let commands = try await Self.subcommands()
        // The options of `stepsync <words before the first option> --help`: a nested command's own (`clients add`).
        var cache: [[String]: Set<String>] = [:]
        func options(_ words: [String]) async throws -> Set<String> {
            let path = Array(words.prefix { !$0.hasPrefix("-") })
            if let known = cache[path] { return known }
            let known = try await Self.options(of: path)
            cache[path] = known
            return known
        }
        var rows: Set<String> = []
        var problems: [String] = []
        for line in text.components(separatedBy: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, let name = cells[1].split(separator: " ").first?.trimmingCharacters(in: ["`"]) else { continue }
            guard commands.contains(name) else { problems.append("the README has a row for `\(name)`, which the binary lacks"); continue }
            rows.insert(name)
            let example = cells[3].firstMatch(of: /`(stepsync [^`]+)`/).flatMap { Self.words(of: String($0.output.1)) } ?? [name]
            let known = try await options(example)
            for option in Self.optionNames(in: cells[1...3].joined(separator: " ")).subtracting(known).sorted() {
                problems.append("the README's `\(name)` row names \(option), which `stepsync \(name) --help` lacks")
            }
        }
        for missing in Set(commands).subtracting(rows).sorted() { problems.append("the README's table has no row for `\(missing)`") }
        // Every `stepsync …` example in the README (table cells, prose and code blocks) parses and uses only options
        // its command's --help lists.
        let examples = text.matches(of: /`(stepsync [^`]+)`/).map { String($0.output.1) } + Self.exampleLines(in: text)
        #expect(examples.count >= 15)
        for example in examples {
            guard let words = Self.words(of: example), let command = words.first else { continue }
            if command.hasPrefix("-") { continue }  // `stepsync --generate-completion-script …`: tested below
            guard commands.contains(command) else { problems.append("`\(example)`: no command \(command)"); continue }
            let known = try await options(words)
            for option in Set(words.filter { $0.hasPrefix("--") }.map { String($0.split(separator: "=")[0]) }).subtracting(known).sorted() {
                problems.append("`\(example)`: \(option) is not an option of `stepsync \(command)`")
            }
            let placeholder = words.contains { $0.contains("…") || ["DIR", "N", "T", "NAME"].contains($0) }
            if !Self.setsEnvironment(example), !placeholder, let problem = Self.parseProblem(words) {
                problems.append("`\(example)` does not parse: \(problem)")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// The README's runnable examples, in order: the "typical run" block, then the command table's example column.
    static func readmeRunnableExamples(_ text: String) -> [String] {
        let lines = text.components(separatedBy: "\n")
        let start = lines.firstIndex { $0.hasPrefix("A typical run by hand") }
        var typical: [String] = []
        if let start, let open = lines[start...].firstIndex(where: { $0.hasPrefix("```") }) {
            for line in lines[(open + 1)...] {
                if line.hasPrefix("```") { break }
                if line.hasPrefix("stepsync ") { typical.append(line) }
            }
        }
        let table = lines.filter { $0.hasPrefix("| `") }.compactMap { line -> String? in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count >= 4 else { return nil }
            return cells[3].firstMatch(of: /`(stepsync [^`]+)`/).map { String($0.output.1) }
        }
        return typical + table
    }

    @Test("the README's typical run and the table's examples run, in order, on a fresh data directory: exit 0 each")
    func readmeExamplesRun() async throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let examples = Self.readmeRunnableExamples(text)
        #expect(examples.count >= 15, "\(examples)")
        let dir = TemporaryDirectory.uniquePath("stepsync-readme")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let environment = ["STEPSYNC_DATA_DIR": dir, "STEPSYNC_TZ": "UTC"]
        var sink: StepSyncProcess?
        var port = 0
        defer { if let sink { kill(sink.pid, SIGTERM) } }
        var ran: [String] = []
        for line in examples {
            var words = try #require(Self.words(of: line))
            switch words.first {
            case "import": continue  // needs the user's own export.zip
            case "clients": continue  // needs a PostgreSQL server (PostgresProcessTests run clients against one)
            case "serve":
                if sink != nil { continue }  // one sink per data directory: the typical run's is still running
                // On a free port instead of the example's 8000 (the later examples are pointed at it).
                if let index = words.firstIndex(of: "--port") { words[index + 1] = "0" }
                let process = try StepSyncProcess(words, environment: environment)
                sink = process
                try await process.waitForStdout(containing: "listening on http://")
                let listening = try #require(process.stdout.split(separator: "\n").first { $0.hasPrefix("listening on http://") })
                port = try #require(listening.split(separator: ":").last.flatMap { Int($0) })
                ran.append(line)
                continue
            default: break
            }
            words = words.map { $0.replacingOccurrences(of: "127.0.0.1:8000", with: "127.0.0.1:\(port)") }
            let (status, process) = try await StepSyncProcess.run(words, environment: environment)
            #expect(status == 0, "`\(line)` exited \(status): \(process.stderr.suffix(2_000))")
            #expect(!process.stderr.contains("USAGE: stepsync <subcommand>"), "`\(line)`: \(process.stderr)")
            ran.append(line)
        }
        #expect(ran.contains { $0.hasPrefix("stepsync sync ") } && ran.contains { $0.hasPrefix("stepsync serve ") })
    }

    @Test("the README says where the binary is and how to install it, and what the demo generates")
    func readmeInstallAndDemo() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        for needle in ["swift build -c release", ".build/release/stepsync", "swift run stepsync", "9 types"] {
            #expect(text.contains(needle), "README.md does not mention \(needle)")
        }
        #expect(!text.contains("Every command takes `--data-dir"))
    }

    @Test("the README states the prerequisites and shows the shell completions")
    func readmePrerequisites() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        for needle in ["Swift 6.1", "libsqlite3-dev", "zlib1g-dev", "--generate-completion-script bash",
                       "--generate-completion-script zsh", "--generate-completion-script fish"] {
            #expect(text.contains(needle), "README.md does not mention \(needle)")
        }
    }

    @Test("completion scripts for bash, zsh and fish name every command", arguments: ["bash", "zsh", "fish"])
    func completions(shell: String) async throws {
        let (status, process) = try await StepSyncProcess.run(["--generate-completion-script", shell])
        #expect(status == 0, "\(process.stderr)")
        for command in try await Self.subcommands() {
            #expect(process.stdout.contains(command), "the \(shell) script does not complete \(command)")
        }
        #expect(process.stdout.contains("data-dir"))  // fish writes -l data-dir
    }

    @Test("--token takes a value that begins with '-' (a token printed before the ss_ prefix could)")
    func tokenBeginningWithADash() throws {
        let sync = try #require(try StepSyncCommand.parseAsRoot(["sync", "--token", "-Ab_9", "--json"]) as? StepSyncCommand.Sync)
        #expect(sync.token == "-Ab_9" && sync.json)
        let reset = try #require(try StepSyncCommand.parseAsRoot(["reset", "--token", "--x", "--yes"]) as? StepSyncCommand.Reset)
        #expect(reset.token == "--x" && reset.yes)
        let serve = try #require(try StepSyncCommand.parseAsRoot(["serve", "--token", "-t", "--port", "0"]) as? StepSyncCommand.Serve)
        #expect(serve.token == "-t" && serve.port == 0)
    }
}
