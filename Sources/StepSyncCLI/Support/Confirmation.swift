import Foundation

/// Asks a yes/no question on the terminal before destructive work (`delete`, `reset`).
enum Confirmation {
    /// Returns true when `assumeYes`, or when the user answers y/yes on stdin. Without a terminal on stdin and
    /// without `assumeYes` it throws rather than guess.
    static func confirm(_ question: String, assumeYes: Bool) throws -> Bool {
        if assumeYes { return true }
        guard isatty(STDIN_FILENO) == 1 else {
            throw ConfirmationError(message: "\(question) Refusing without a terminal to ask on: pass --yes.")
        }
        FileHandle.standardError.write(Data("\(question) [y/N] ".utf8))
        guard let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return answer == "y" || answer == "yes"
    }
}

/// Destructive work was asked for without `--yes` and without a terminal to confirm on.
struct ConfirmationError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
