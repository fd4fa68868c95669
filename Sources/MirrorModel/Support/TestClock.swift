import Foundation
import Synchronization

/// A wall clock a test moves from outside the process: the time now plus the
/// whole seconds a file holds (`TestTimings.clockFile`), read at each use.
/// github-sim reads the same file (`--app-clock-file`), so one write takes
/// both past a token's refresh time or expiry at once, instead of a test
/// waiting the token's lifetime out.
public final class TestClock: Sendable {
    public let path: String
    /// The last offset read: a file caught while it is replaced keeps it.
    private let lastOffset: Mutex<Int>

    private init(path: String, offset: Int) {
        self.path = path
        lastOffset = Mutex(offset)
    }

    /// The clock `TestTimings.clockFile` names; nil when it is unset or empty.
    public static func configured(in environment: EnvironmentVariables) throws(TestClockError) -> TestClock? {
        guard let path = environment.nonEmpty(TestTimings.clockFile) else { return nil }
        guard let offset = offset(in: path) else { throw TestClockError(path: path) }
        return TestClock(path: path, offset: offset)
    }

    /// The time by this clock.
    public func now() -> Date {
        let offset = lastOffset.withLock { last in
            if let read = Self.offset(in: path) { last = read }
            return last
        }
        return Date(timeIntervalSinceNow: Double(offset))
    }

    /// The whole seconds, 0 or more, that `path` holds; nil when it holds anything else.
    private static func offset(in path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let seconds = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), seconds >= 0
        else { return nil }
        return seconds
    }
}

/// A test clock whose file cannot be read or holds no whole number of seconds.
public struct TestClockError: Error, Equatable, CustomStringConvertible {
    public let path: String

    public var description: String {
        "$\(TestTimings.clockFile) must name a file holding a whole number of seconds, 0 or more, to add to the clock; \"\(path)\" does not; it is for tests: unset it"
    }
}
