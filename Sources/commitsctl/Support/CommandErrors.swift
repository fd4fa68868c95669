import ArgumentParser
import Foundation
import MirrorCore

/// Exit codes shared by the commands (documented in README.md).
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
    } catch let error as ExitCode {
        throw error
    } catch is CancellationError {
        throw ExitCode(130)
    } catch {
        printError(Advice.line(for: error))
        throw ExitCode(exitStatus(for: error))
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
