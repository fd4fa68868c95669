import ArgumentParser
import Foundation
import MirrorCore

/// Exit codes shared by the commands (documented in docs/SYNC.md, "Exit codes").
enum ExitStatus {
    static let failure: Int32 = 1
    /// The configuration file is missing, unreadable or invalid.
    static let badConfiguration: Int32 = 2
    /// EX_TEMPFAIL: rate-limited or temporarily unavailable; try again later.
    static let tryLater: Int32 = 75
}

/// Runs a command body; any error becomes one line on stderr that says what to
/// do, and a non-zero exit code. Argument errors are left to ArgumentParser.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        throw reported(error)
    }
}

/// The same for a synchronous body: the reading commands (`query`, `show`, `authors`,
/// `stats` and others) run on the main thread, with no worker threads to start for a
/// few milliseconds of reading.
func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch {
        throw reported(error)
    }
}

/// The exit an error ends the command with, printed unless it is an exit already.
private func reported(_ error: any Error) -> any Error {
    switch error {
    case let error as ExitCode: return error
    case is CancellationError: return ExitCode(130)
    default:
        printError(Advice.line(for: error))
        return ExitCode(exitStatus(for: error))
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("commitsctl: error: \(message)\n".utf8))
}

func printWarning(_ message: String) {
    FileHandle.standardError.write(Data("commitsctl: warning: \(message)\n".utf8))
}

/// Tells the user that opening the store upgraded its schema, and where the copy made first is.
func reportUpgrade(of store: any MirrorWriter) {
    guard let upgrade = store.upgraded else { return }
    FileHandle.standardError.write(
        Data(
            "commitsctl: upgraded the store \(store.location) from schema version \(upgrade.fromVersion) to \(upgrade.toVersion); the copy made before the upgrade is \(upgrade.backupPath)\n"
                .utf8))
}

private func exitStatus(for error: any Error) -> Int32 {
    if let error = error as? GitHubError, error.isRateLimit { return ExitStatus.tryLater }
    if let error = error as? StoreError, case .busy = error { return ExitStatus.tryLater }
    if let error = error as? RepositoryLockError, case .busy = error { return ExitStatus.tryLater }
    if error is ConfigurationError { return ExitStatus.badConfiguration }
    return ExitStatus.failure
}
