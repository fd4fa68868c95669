import Foundation
import MirrorTestSupport
import PostgreSQL
import SQLite
import Testing

@testable import MirrorCore
@testable import MirrorPostgreSQL
@testable import MirrorSQLite

/// The tags table reaches stores made before it: a SQLite file of the previous
/// schema version is backed up and upgraded when a writer opens it, and a
/// PostgreSQL database without the table gains it; both keep their commits and
/// record tags afterwards.
@Suite struct TagsUpgradeTests {
    static let beforeTags = Migrator(Array(Schema.migrator.migrations.prefix { $0.version < Schema.tagsVersion }))

    static let tags = [
        AnnouncedTag(name: "v1.0", objectSHA: PayloadFixtures.sha(1), commitSHA: PayloadFixtures.sha(1), isAnnotated: false)
    ]

    @Test func aSQLiteStoreOfThePreviousVersionGainsTheTagsTableAndKeepsItsCommits() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("commits.sqlite")
        do {
            let old = try MirrorStore(path: path, migrator: Self.beforeTags)
            let repository = try old.adopt(StoreFixtures.identity, requestedAs: StoreFixtures.identity.fullName)
            _ = try await old.withBatches(limits: BatchLimits()) { batches in
                try batches.storeFromGit([StoreFixtures.commit(1, parents: [])], repositoryID: repository.id)
            }
        }
        let upgraded = try MirrorStore(path: path)
        let upgrade = try #require(upgraded.upgraded)
        #expect(upgrade.fromVersion == Schema.tagsVersion - 1 && upgrade.toVersion == Schema.migrator.latestVersion)
        #expect(try Schema.migrator.appliedVersion(in: Connection(path: upgrade.backupPath, mode: .readOnly)) == Schema.tagsVersion - 1)
        let repository = try #require(try upgraded.repository(named: StoreFixtures.identity.fullName))
        #expect(try upgraded.commitCount(repositoryID: repository.id) == 1)
        #expect(try upgraded.recordTags(Self.tags, repositoryID: repository.id, at: Date()) == TagChanges(added: 1))
        let reader = try MirrorReader(path: path)
        #expect(try reader.tags(repositoryID: repository.id, includingEnded: false).map { $0.commitID != nil } == [true])
        let check = try reader.check()
        #expect(check.foreignKeyViolations.isEmpty && check.integrityOK)
    }

    @Test func aPostgreSQLStoreWithoutTheTagsTableGainsItWhenAWriterOpensIt() async throws {
        TestStoreDrivers.register()
        let uri = try await PostgreSQLServer.shared().createDatabase()
        let location = try StoreLocation(uri)
        let repositoryID: Int64
        do {
            let writer = try location.openSyncWriter()
            repositoryID = try writer.adopt(StoreFixtures.identity, requestedAs: StoreFixtures.identity.fullName).id
            _ = try await writer.withBatches(limits: BatchLimits()) { batches in
                try batches.storeFromGit([StoreFixtures.commit(1, parents: [])], repositoryID: repositoryID)
            }
        }
        // The database as the previous version left it.
        let connection = try PostgreSQLConnection(uri: uri)
        try connection.execute("DROP TABLE tag_listings")
        try connection.execute("DROP TABLE tag_containment")
        try connection.execute("DROP TABLE tags")
        try connection.execute("DELETE FROM commits_mirror_schema WHERE version = $1", [PostgreSQLSchema.tags.version])
        #expect { _ = try location.openCommitReader() } throws: { "\($0)".contains("needs a schema upgrade") }
        let writer = try location.openSyncWriter()
        #expect(
            try connection.execute("SELECT count(*) FROM commits_mirror_schema WHERE version = $1", [PostgreSQLSchema.tags.version])
                .int(0, 0) == 1)
        #expect(try writer.commitCount(repositoryID: repositoryID) == 1)
        #expect(try writer.recordTags(Self.tags, repositoryID: repositoryID, at: Date()) == TagChanges(added: 1))
        let reader = try location.openCommitReader()
        #expect(try reader.tags(repositoryID: repositoryID, includingEnded: false).map(\.tag) == Self.tags)
        let check = try reader.check()
        #expect(check.foreignKeyViolations.isEmpty && !check.isDamaged, "\(check)")
    }
}
