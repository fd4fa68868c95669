import MirrorTestSupport
import Foundation
import GitHubSim
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// `MirrorStore.check()` (`commitsctl check`): integrity, foreign keys and the
/// completeness of each mirrored branch, each of which it must catch.
@Suite struct StoreCheckTests {
    static let repository = SimRepository.widgets(id: 79, SyntheticSpec(commits: 700, authors: 10, mergeEvery: 5, seed: 5))

    @Test func aCompleteMirrorPassesEveryCheck() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            try await harness.sync("acme/widgets")
            let check = try MirrorReader(path: harness.storePath).check()
            #expect(check.integrityOK && check.foreignKeyViolations.isEmpty && check.unindexedMessages == 0)
            #expect(!check.isDamaged && check.isComplete)
            let branch = try #require(check.branches.first)
            #expect(branch.repository == "acme/widgets" && branch.branch == "main" && branch.commits == 700)
            #expect(branch.missingParents == 0 && branch.pendingWalks == 0 && branch.headStored == true)
        }
    }

    @Test func anInterruptedSyncIsIncompleteButNotDamaged() async throws {
        var configuration = SimConfiguration()
        configuration.authenticatedLimit = 4
        try await withRunning(SimulatorHarness.start([Self.repository], configuration: configuration)) { harness in
            await #expect(throws: GitHubError.self) { try await harness.sync("acme/widgets") }
            let check = try MirrorReader(path: harness.storePath).check()
            let branch = try #require(check.branches.first)
            #expect(branch.commits > 0 && branch.commits < 700 && branch.commits % 100 == 0)
            #expect(branch.pendingWalks == 1 && branch.missingParents > 0)
            #expect(!branch.markedComplete && !branch.isComplete && !branch.isInconsistent)
            #expect(!check.isDamaged && !check.isComplete)
        }
    }

    /// The writer indexes new messages itself (schema version 5), so the check
    /// makes sure no message was left out of the search index.
    @Test func aMessageMissingFromTheSearchIndexIsDamage() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            try await harness.sync("acme/widgets")
            let writer = try Connection(path: harness.storePath)
            try writer.execute(
                """
                INSERT INTO commits_fts (commits_fts, rowid, message)
                SELECT 'delete', id, message FROM commits ORDER BY id LIMIT 2 OFFSET 100
                """)
            let check = try MirrorReader(path: harness.storePath).check()
            #expect(check.unindexedMessages == 2)
            #expect(check.isDamaged)
        }
    }

    @Test func aBranchMarkedCompleteWithHistoryMissingIsDamage() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            try await harness.sync("acme/widgets")
            let writer = try Connection(path: harness.storePath)
            // Lose one commit in the middle of the history (as a bug or a bad restore might).
            try writer.execute(
                """
                DELETE FROM repository_commits WHERE commit_id = (SELECT id FROM commits ORDER BY committer_date LIMIT 1 OFFSET 350)
                """)
            let check = try MirrorReader(path: harness.storePath).check()
            let branch = try #require(check.branches.first)
            #expect(branch.markedComplete && branch.missingParents >= 1)
            #expect(branch.isInconsistent && check.isDamaged && check.integrityOK)
        }
    }

    @Test func aRecordedHeadThatIsNotStoredIsDamage() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            try await harness.sync("acme/widgets")
            try Connection(path: harness.storePath).execute("UPDATE sync_state SET head_sha = ?", [String(repeating: "f", count: 40)])
            let check = try MirrorReader(path: harness.storePath).check()
            #expect(check.branches.first?.headStored == false)
            #expect(check.isDamaged)
        }
    }

    @Test func foreignKeyViolationsAreReported() async throws {
        try await withRunning(SimulatorHarness.start([Self.repository])) { harness in
            try await harness.sync("acme/widgets")
            let writer = try Connection(path: harness.storePath)
            try writer.execute("PRAGMA foreign_keys = OFF")
            try writer.execute("INSERT INTO repository_commits (repository_id, commit_id, change_seq) VALUES (1, 987654321, 0)")
            let check = try MirrorReader(path: harness.storePath).check()
            #expect(check.foreignKeyViolations.count == 1)
            #expect(check.foreignKeyViolations.first?.hasPrefix("repository_commits row") == true)
            #expect(check.isDamaged)
        }
    }
}
