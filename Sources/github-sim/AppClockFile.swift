import Foundation

/// `--app-clock-file`: the App's clock for a test that moves it from outside,
/// the wall clock plus the whole seconds the file holds, read at each use, so
/// one write takes github-sim and commitsd past a token's expiry together.
struct AppClockFile: Sendable {
    let path: String

    init(path: String) throws {
        self.path = path
        guard secondsAhead() != nil else {
            throw ArgumentProblem(description: "--app-clock-file \(path): expected a file holding a whole number of seconds, 0 or more")
        }
    }

    /// The wall clock alone while the file cannot be read: tests replace it whole, by a rename.
    @Sendable func now() -> Date { Date(timeIntervalSinceNow: Double(secondsAhead() ?? 0)) }

    private func secondsAhead() -> Int? {
        let text = try? String(contentsOfFile: path, encoding: .utf8)
        return text.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }.flatMap { $0 >= 0 ? $0 : nil }
    }
}
