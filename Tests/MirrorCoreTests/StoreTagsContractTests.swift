import Foundation
import MirrorPostgreSQL
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// Tags (`TagRecords`, `TagReading`) in the same suite as the rest of the store
/// contract: each test runs on a SQLite file and on a PostgreSQL database, and
/// reads back through the reader the commands open.
extension StoreContractTests {
    static let otherRepository = RepositoryIdentity(
        githubID: 4343, fullName: RepositoryName(owner: "acme", name: "gadgets"), defaultBranch: "main", htmlURL: nil)

    static func lightweight(_ name: String, _ commit: Int) -> AnnouncedTag {
        AnnouncedTag(name: name, objectSHA: PayloadFixtures.sha(commit), commitSHA: PayloadFixtures.sha(commit), isAnnotated: false)
    }

    static func annotated(_ name: String, _ commit: Int, _ annotation: TagAnnotation? = nil) -> AnnouncedTag {
        AnnouncedTag(
            name: name, objectSHA: PayloadFixtures.sha(0x7a90_0000 + commit), commitSHA: PayloadFixtures.sha(commit),
            isAnnotated: true, annotation: annotation)
    }

    static let annotation = TagAnnotation(
        taggerName: "Lin", taggerEmail: "lin@example.com", taggedAt: "2024-05-01T10:00:00Z", message: "Release\n\nnotes")
    static let treeTag = AnnouncedTag(
        name: "tree-tag", objectSHA: PayloadFixtures.sha(0x7ee), commitSHA: nil, isAnnotated: true)

    /// The repository holding `a1` ← `a2` ← `b3` (its main branch's head; two shas share a
    /// longer prefix than the third), and another holding `b4`.
    static func taggedRepositories(_ store: StoreUnderTest) async throws -> (repositoryID: Int64, otherID: Int64) {
        let (repositoryID, _) = try walking(store, head: 0xb3)
        let commits = [
            StoreFixtures.commit(0xa1, parents: []), StoreFixtures.commit(0xa2, parents: [0xa1]),
            StoreFixtures.commit(0xb3, parents: [0xa2]),
        ]
        let other = try store.writer.adopt(otherRepository, requestedAs: otherRepository.fullName)
        _ = try await store.writer.withBatches(limits: BatchLimits()) { batches in
            _ = try batches.storeFromGit(commits.reversed(), repositoryID: repositoryID)
            _ = try batches.storeFromGit([StoreFixtures.commit(0xb4, parents: [])], repositoryID: other.id)
        }
        try store.writer.recordSuccess(
            repositoryID: repositoryID, branch: "main", headSHA: PayloadFixtures.sha(0xb3), headETag: nil, complete: true,
            rateLimit: nil)
        return (repositoryID, other.id)
    }

    static func commitID(_ store: StoreUnderTest, _ n: Int) throws -> Int64 {
        let id = try store.committed("SELECT id FROM commits WHERE sha = $1", [PayloadFixtures.sha(n)]).first?.first ?? nil
        return try #require(id.flatMap { Int64($0) })
    }

    static func day(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_714_000_000 + TimeInterval(n) * 86_400) }

    /// Each tag as `name first-seen ended commit-id`, as the reader lists them.
    static func places(_ tags: [StoredTag]) -> [String] {
        tags.map { "\($0.tag.name) \($0.firstSeenAt) \($0.endedAt ?? "-") \($0.commitID.map(String.init) ?? "-")" }
    }

    @Test(arguments: Backend.allCases)
    func aTagListingIsRecordedOnceAndAMoveOrDeletionEndsARowWithoutLosingIt(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, _) = try await Self.taggedRepositories(store)
        let (a1, a2, b3) = (try Self.commitID(store, 0xa1), try Self.commitID(store, 0xa2), try Self.commitID(store, 0xb3))
        let first = [
            Self.lightweight("v1.0", 0xa1), Self.annotated("v2.0", 0xa2), Self.lightweight("old", 0xa2), Self.treeTag,
            Self.lightweight("unstored", 0x999),
        ]
        #expect(try store.writer.recordTags(first, repositoryID: repositoryID, at: Self.day(1)) == TagChanges(added: 5))
        let reader = try store.location.openCommitReader()
        let recorded = try reader.tags(repositoryID: repositoryID, includingEnded: true)
        #expect(try store.writer.recordTags(first.reversed(), repositoryID: repositoryID, at: Self.day(2)).isEmpty)
        #expect(try reader.tags(repositoryID: repositoryID, includingEnded: true) == recorded, "an unchanged listing writes nothing")
        #expect(
            try store.writer.tagObjectsWithoutAnnotation(repositoryID: repositoryID) == [
                PayloadFixtures.sha(0x7ee), PayloadFixtures.sha(0x7a90_00a2),
            ])

        // v1.0 moves to b3, old is deleted, v3.0 is new, and v2.0's annotation has been read.
        let second = [
            Self.lightweight("v1.0", 0xb3), Self.annotated("v2.0", 0xa2, Self.annotation), Self.treeTag,
            Self.lightweight("unstored", 0x999), Self.lightweight("v3.0", 0xb3),
        ]
        let changes = try store.writer.recordTags(second, repositoryID: repositoryID, at: Self.day(3))
        #expect(changes == TagChanges(added: 1, moved: 1, deleted: 1))
        #expect(try store.writer.tagObjectsWithoutAnnotation(repositoryID: repositoryID) == [PayloadFixtures.sha(0x7ee)])
        let (one, three) = (ISO8601Timestamp.format(Self.day(1)), ISO8601Timestamp.format(Self.day(3)))
        let everyPlace = try reader.tags(repositoryID: repositoryID, includingEnded: true)
        #expect(
            Self.places(everyPlace) == [
                "old \(one) \(three) \(a2)", "tree-tag \(one) - -", "unstored \(one) - -", "v1.0 \(one) \(three) \(a1)",
                "v1.0 \(three) - \(b3)", "v2.0 \(one) - \(a2)", "v3.0 \(three) - \(b3)",
            ])
        let current = try reader.tags(repositoryID: repositoryID, includingEnded: false)
        #expect(current == everyPlace.filter { $0.endedAt == nil })
        let v2 = try #require(current.first { $0.tag.name == "v2.0" })
        #expect(v2.tag == Self.annotated("v2.0", 0xa2, Self.annotation) && v2.creatorDate == Self.annotation.taggedAt)
        let v3 = try #require(current.first { $0.tag.name == "v3.0" })
        #expect(v3.tag == Self.lightweight("v3.0", 0xb3) && v3.repository == StoreFixtures.identity.fullName)
        #expect(v3.commitDate == ISO8601Timestamp.format(Date(timeIntervalSince1970: 1_700_000_000 + 0xb3)))
        #expect(v3.creatorDate == v3.commitDate)
        #expect(try store.committedCount("SELECT count(*) FROM tags") == 7, "nothing is ever deleted")
        #expect(try reader.tagCounts() == [StoreFixtures.identity.fullName.description: 5], "ended rows are not counted")

        // The listing's ETag is kept with the selection it was narrowed to, and replaced with the next.
        #expect(try store.writer.tagListing(repositoryID: repositoryID).etag == nil)
        _ = try store.writer.recordTags(second, repositoryID: repositoryID, etag: "W/\"one\"", selection: "v*\nrc-*", at: Self.day(4))
        let narrowed = try store.writer.tagListing(repositoryID: repositoryID)
        #expect(narrowed.etag == "W/\"one\"" && narrowed.selection == "v*\nrc-*" && narrowed.tags.count == 5)
        _ = try store.writer.recordTags(second, repositoryID: repositoryID, etag: "W/\"two\"", selection: nil, at: Self.day(5))
        let listing = try store.writer.tagListing(repositoryID: repositoryID)
        #expect(listing.etag == "W/\"two\"" && listing.tags == narrowed.tags && listing.listedAt != nil)
    }

    @Test(arguments: Backend.allCases)
    func anAnnotationReadLaterFillsTheRowAndIsNotOverwritten(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, _) = try await Self.taggedRepositories(store)
        _ = try store.writer.recordTags([Self.annotated("v2.0", 0xa2)], repositoryID: repositoryID, at: Self.day(1))
        let filled = try store.writer.recordTags(
            [Self.annotated("v2.0", 0xa2, Self.annotation)], repositoryID: repositoryID, at: Self.day(2))
        #expect(filled.isEmpty, "filling an annotation is no change of place")
        var other = Self.annotation
        other.message = "rewritten"
        _ = try store.writer.recordTags([Self.annotated("v2.0", 0xa2, other)], repositoryID: repositoryID, at: Self.day(3))
        let tags = try store.location.openCommitReader().tags(repositoryID: repositoryID, includingEnded: true)
        #expect(tags.map(\.tag.annotation) == [Self.annotation])
        #expect(tags.map(\.firstSeenAt) == [ISO8601Timestamp.format(Self.day(1))])
    }

    @Test(arguments: Backend.allCases)
    func aRevisionNameResolvesToItsTagItsBranchAndTheCommitsItsDigitsStart(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, otherID) = try await Self.taggedRepositories(store)
        let (a1, a2, b3) = (try Self.commitID(store, 0xa1), try Self.commitID(store, 0xa2), try Self.commitID(store, 0xb3))
        let tags = [Self.lightweight("v1.0", 0xa1), Self.lightweight("unstored", 0x999), Self.treeTag]
        _ = try store.writer.recordTags(tags, repositoryID: repositoryID, at: Self.day(1))
        _ = try store.writer.recordTags([Self.lightweight("gadget", 0xb4)], repositoryID: otherID, at: Self.day(1))
        let reader = try store.location.openCommitReader()
        let zeros = String(repeating: "0", count: 38)
        let (sha1, sha2, sha3) = (PayloadFixtures.sha(0xa1), PayloadFixtures.sha(0xa2), PayloadFixtures.sha(0xb3))
        #expect(try reader.revisionTargets("v1.0", repositoryID: repositoryID) == RevisionTargets(tag: .some(a1)))
        #expect(try reader.revisionTargets("unstored", repositoryID: repositoryID) == RevisionTargets(tag: .some(nil)))
        #expect(try reader.revisionTargets("tree-tag", repositoryID: repositoryID) == RevisionTargets(tag: .some(nil)))
        #expect(try reader.revisionTargets("main", repositoryID: repositoryID) == RevisionTargets(branch: b3))
        #expect(try reader.revisionTargets("gadget", repositoryID: repositoryID) == RevisionTargets(), "another repository's")
        #expect(try reader.revisionTargets(zeros + "B", repositoryID: repositoryID) == RevisionTargets(commits: [(b3, sha3)]))
        #expect(
            try reader.revisionTargets(zeros + "a", repositoryID: repositoryID) == RevisionTargets(commits: [(a1, sha1), (a2, sha2)]))
        #expect(
            try reader.revisionTargets("0000", repositoryID: repositoryID).commits.map(\.id) == [a1, a2, b3], "b4 is the other's")
        #expect(try reader.revisionTargets("dead", repositoryID: repositoryID) == RevisionTargets())
        #expect(try reader.revisionTargets("nothing", repositoryID: repositoryID) == RevisionTargets())
        #expect(try reader.shas(ofCommits: [a1, b3, 999_999]) == [a1: sha1, b3: sha3])
        #expect(try reader.shas(ofCommits: []).isEmpty)
        let everywhere = try reader.tags(repositoryID: nil, includingEnded: false)
        #expect(everywhere.map(\.tag.name) == ["gadget", "tree-tag", "unstored", "v1.0"], "acme/gadgets first")
        #expect(try reader.tagCounts() == ["acme/gadgets": 1, StoreFixtures.identity.fullName.description: 3])
    }

    @Test func copyStoreCarriesTagsBothWays() async throws {
        let source = try await StoreUnderTest(.sqlite)
        let (repositoryID, _) = try await Self.taggedRepositories(source)
        let first = [Self.lightweight("v1.0", 0xa1), Self.annotated("v2.0", 0xa2, Self.annotation), Self.treeTag]
        _ = try source.writer.recordTags(first, repositoryID: repositoryID, at: Self.day(1))
        _ = try source.writer.recordTags([Self.lightweight("v1.0", 0xb3)], repositoryID: repositoryID, at: Self.day(2))
        let expected = try source.location.openCommitReader().tags(repositoryID: nil, includingEnded: true)
        #expect(expected.count == 4)
        let database = try StoreLocation(try await PostgreSQLServer.shared().createDatabase())
        let directory = try TemporaryDirectory()
        let returned = StoreLocation.sqliteFile(directory.path("returned.sqlite"))
        _ = try StoreTransfer.copy(from: source.location, to: database)
        _ = try StoreTransfer.copy(from: database, to: returned)
        for location in [database, returned] {
            #expect(try location.openCommitReader().tags(repositoryID: nil, includingEnded: true) == expected, "\(location)")
        }
        // A tag new to the copy takes an id after the copied ones, and the copied current rows still count as current.
        let writer = try database.openSyncWriter()
        let changes = try writer.recordTags(
            [Self.lightweight("v1.0", 0xb3), Self.lightweight("v4.0", 0xa1)], repositoryID: repositoryID, at: Self.day(3))
        #expect(changes == TagChanges(added: 1), "v1.0 stays where it was copied")
    }
}
