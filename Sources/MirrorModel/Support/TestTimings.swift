/// Environment variables only tests set: each replaces a wait the programs
/// otherwise fix, so a test produces a timing on purpose instead of hoping a
/// loaded machine happens to produce it. Unset, nothing changes.
public enum TestTimings {
    /// `commitsctl sync`: how long an open batch of pages waits for the next
    /// page and stays open at most (otherwise `SyncEngine`'s own limits), so a
    /// test can kill a sync while a batch of several pages is certainly open.
    public static let batchSeconds = "COMMITS_MIRROR_TEST_BATCH_SECONDS"
    /// `commitsctl sync`: how long a history read over git waits, once its first
    /// batch of commits is committed, before it stores the next, so a test kills
    /// it inside the storing with a known number of commits stored.
    public static let gitPauseSeconds = "COMMITS_MIRROR_TEST_GIT_PAUSE_SECONDS"
    /// commitsd: how long the webhook receiver gives each request to arrive
    /// (otherwise `WebhookServer.defaultRequestTimeout`), so a test's slow connections outlast its steps.
    public static let webhookTimeoutSeconds = "COMMITS_MIRROR_TEST_WEBHOOK_TIMEOUT_SECONDS"
    /// commitsd: a file holding whole seconds its GitHub App clock is ahead of
    /// the wall clock (`TestClock`), which github-sim's `--app-clock-file` reads
    /// too, so a test takes installation tokens past their refresh time or expiry.
    public static let clockFile = "COMMITS_MIRROR_TEST_CLOCK_FILE"
    /// The longest a test may set: a day.
    public static let maximumSeconds = 86_400
}

/// A test timing that is not a whole number of seconds in range.
public struct TestTimingError: Error, Equatable, CustomStringConvertible {
    public let variable: String
    public let value: String

    public var description: String {
        "$\(variable) must be a whole number of seconds from 1 to \(TestTimings.maximumSeconds), not \"\(value)\"; it is for tests: unset it"
    }
}

extension EnvironmentVariables {
    /// The seconds a test timing variable sets; nil when it is unset or empty.
    public func testSeconds(_ variable: String) throws(TestTimingError) -> Int? {
        guard let value = nonEmpty(variable) else { return nil }
        guard let seconds = Int(value), (1...TestTimings.maximumSeconds).contains(seconds) else {
            throw TestTimingError(variable: variable, value: value)
        }
        return seconds
    }
}
