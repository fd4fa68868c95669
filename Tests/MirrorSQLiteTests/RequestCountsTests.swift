import Foundation
import MirrorTestSupport
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// What each token spent (`request_counts`, schema version 7): minute buckets,
/// the last hour, pruning, and the upgrade of a version-6 store.
@Suite struct RequestCountsTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// A whole minute; the tests move this clock by hand.
    let clock = Date(timeIntervalSince1970: 1_795_415_400)

    @Test func theLastHourIsSummedByTokenAndKind() throws {
        let path = directory.path("store.sqlite")
        let store = try MirrorStore(path: path)
        let token = "environment variable GITHUB_TOKEN"
        try store.recordRequests(
            [.poll: RequestTally(requests: 10, notModified: 9, points: 1), .page: RequestTally(requests: 3, points: 3)],
            token: token, at: clock)
        // The same minute adds up; another minute, another token, the hour before.
        try store.recordRequests([.poll: RequestTally(requests: 5, notModified: 5)], token: token, at: clock.addingTimeInterval(20))
        try store.recordRequests([.poll: RequestTally(requests: 2, notModified: 2)], token: token, at: clock.addingTimeInterval(-59 * 60))
        try store.recordRequests([.ownerListing: RequestTally(requests: 1, points: 1)], token: "file /etc/token", at: clock)
        try store.recordRequests([.poll: RequestTally(requests: 100, points: 100)], token: token, at: clock.addingTimeInterval(-61 * 60))

        let spent = try MirrorReader(path: path).spentRequests(inHourBefore: clock.addingTimeInterval(30))
        #expect(
            spent == [
                .init(
                    token: "environment variable GITHUB_TOKEN", kind: .poll, tally: RequestTally(requests: 17, notModified: 16, points: 1)),
                .init(token: "environment variable GITHUB_TOKEN", kind: .page, tally: RequestTally(requests: 3, points: 3)),
                .init(token: "file /etc/token", kind: .ownerListing, tally: RequestTally(requests: 1, points: 1)),
            ])
        // A day later the old minutes are pruned by the next write.
        try store.recordRequests([.compare: RequestTally(requests: 1, points: 1)], token: token, at: clock.addingTimeInterval(86_400 + 120))
        #expect(try store.db.scalarInt("SELECT count(*) FROM request_counts") == 1)
    }

    /// A store version 6 left is upgraded in one transaction with a copy made
    /// first; its data stays, and the new table takes counts.
    @Test func aVersion6StoreIsUpgraded() throws {
        let path = directory.path("old.sqlite")
        do {
            let old = try MirrorStore(path: path, migrator: Migrator(Array(Schema.migrator.migrations.prefix(6))))
            try old.db.execute("INSERT INTO repositories (full_name, github_id) VALUES ('acme/widgets', 7)")
        }
        let store = try MirrorStore(path: path)
        let upgrade = try #require(store.upgraded)
        #expect(upgrade.fromVersion == 6 && upgrade.toVersion == Schema.migrator.latestVersion)
        #expect(FileManager.default.fileExists(atPath: upgrade.backupPath))
        #expect(try store.db.scalarInt("SELECT count(*) FROM repositories WHERE full_name = 'acme/widgets'") == 1)
        try store.recordRequests([.poll: RequestTally(requests: 1, notModified: 1)], token: "t", at: clock)
        #expect(try MirrorReader(path: path).spentRequests(inHourBefore: clock).map(\.tally.requests) == [1])
    }
}
