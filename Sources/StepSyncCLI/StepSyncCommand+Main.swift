import ArgumentParser
import Foundation

extension StepSyncCommand {
    /// Parses and runs the command line, like `AsyncParsableCommand.main()`, except that a `ValidationError` a
    /// subcommand throws while running (`layer --max-sum Foo=1`) is shown with that subcommand's usage, not the root's.
    public static func main() async {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        do {
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                var command = command
                try command.run()
            }
        } catch let error as ValidationError where !(command is StepSyncCommand) {
            let name = (["stepsync"] + Self.path(to: type(of: command))).joined(separator: " ")
            let usage = usageString(for: type(of: command))
            FileHandle.standardError.write(Data("""
                Error: \(error.message)
                Usage: \(usage)
                  See '\(name) --help' for more information.\n
                """.utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        } catch {
            exit(withError: error)
        }
    }

    /// The names from the root to `type` (`["clients", "add"]`), empty when `type` is not below the root.
    static func path(to type: any ParsableCommand.Type) -> [String] {
        func walk(_ path: [String], _ current: any ParsableCommand.Type) -> [String]? {
            if ObjectIdentifier(current) == ObjectIdentifier(type) { return path }
            for sub in current.configuration.subcommands {
                if let found = walk(path + [sub._commandName], sub) { return found }
            }
            return nil
        }
        return allSubcommands.lazy.compactMap { walk([$0._commandName], $0) }.first ?? []
    }
}
