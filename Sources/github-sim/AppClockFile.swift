import Foundation
import Synchronization

/// `--app-clock-file`: the App's clock for a test that moves it from outside,
/// the wall clock plus the whole seconds the file holds, read at each use, so
/// one write takes github-sim and commitsd past a token's expiry together.
final class AppClockFile: Sendable {
    let path: String
    /// What the file last held: one caught while it is replaced keeps this.
    private let lastSeconds: Mutex<Int>

    init(path: String) throws {
        guard let seconds = Self.seconds(in: path) else {
            throw ArgumentProblem(description: "--app-clock-file \(path): expected a file holding a whole number of seconds, 0 or more")
        }
        self.path = path
        lastSeconds = Mutex(seconds)
    }

    @Sendable func now() -> Date {
        let ahead = lastSeconds.withLock { last in
            last = Self.seconds(in: path) ?? last
            return last
        }
        return Date(timeIntervalSinceNow: Double(ahead))
    }

    private static func seconds(in path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let seconds = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), seconds >= 0
        else { return nil }
        return seconds
    }
}
