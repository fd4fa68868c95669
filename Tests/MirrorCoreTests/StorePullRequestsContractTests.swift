import Foundation
import MirrorPostgreSQL
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// Pull requests (`PullRequestRecords`, `PullRequestReading`) in the store
/// contract's suite: each test on a SQLite file and on a PostgreSQL database,
/// read back through the reader the commands open.
extension StoreContractTests {
    static func pullRequest(
        _ number: Int, merged merge: Int? = nil, head: Int, updated: Int, title: String? = nil, state: PullRequest.State = .closed
    ) -> PullRequest {
        PullRequest(
            number: number, title: title ?? "Pull request \(number)", state: merge == nil ? state : .closed, authorLogin: "ada",
            baseRef: "main", headRef: "topic-\(number)", headSHA: PayloadFixtures.sha(head),
            mergeCommitSHA: merge.map(PayloadFixtures.sha), createdAt: ISO8601Timestamp.format(day(0)),
            updatedAt: ISO8601Timestamp.format(day(updated)), closedAt: merge.map { _ in ISO8601Timestamp.format(day(updated)) },
            mergedAt: merge.map { _ in ISO8601Timestamp.format(day(updated)) })
    }

    @Test(arguments: Backend.allCases)
    func pullRequestsAreAddedUpdatedInPlaceAndLinkedOnlyToTheirOwnRepositorysCommits(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, otherID) = try await Self.taggedRepositories(store)
        // #1 merged as b3 (head a2), #2 open with head a1, #3 merged as b4: a commit of the other repository.
        let listed = [
            Self.pullRequest(1, merged: 0xb3, head: 0xa2, updated: 3), Self.pullRequest(2, head: 0xa1, updated: 2, state: .open),
            Self.pullRequest(3, merged: 0xb4, head: 0x999, updated: 1),
        ]
        #expect(
            try store.writer.recordPullRequests(listed, repositoryID: repositoryID) == PullRequestChanges(added: 3, mergesNotHeld: [3]))
        #expect(try store.writer.recordPullRequests(listed.reversed(), repositoryID: repositoryID).isEmpty)
        let reader = try store.location.openCommitReader()
        let stored = try reader.pullRequests(repositoryID: repositoryID)
        #expect(stored.map(\.pullRequest) == listed)
        #expect(stored.map(\.mergedAs) == [try Self.commitID(store, 0xb3), nil, nil], "b4 is not this repository's")
        #expect(try reader.pullRequests(repositoryID: otherID).isEmpty)

        // Retitled and reopened: updated in place, never a second row.
        var edited = Self.pullRequest(3, head: 0x999, updated: 5, title: "Retitled", state: .open)
        edited.mergeCommitSHA = PayloadFixtures.sha(0xb4)
        #expect(try store.writer.recordPullRequests([edited], repositoryID: repositoryID) == PullRequestChanges(updated: 1))
        #expect(try reader.pullRequests(repositoryID: repositoryID).map(\.pullRequest) == [listed[0], listed[1], edited])

        #expect(try reader.pullRequests(involving: PayloadFixtures.sha(0xb3)).map(\.pullRequest.number) == [1])
        #expect(try reader.pullRequests(involving: PayloadFixtures.sha(0xa2).uppercased()).map(\.pullRequest.number) == [1])
        #expect(try reader.pullRequests(involving: PayloadFixtures.sha(0xa1)).map(\.pullRequest.number) == [2])
        #expect(try reader.pullRequests(involving: PayloadFixtures.sha(0xb4)).isEmpty, "another repository's commit links nothing")
        #expect(try reader.pullRequestCounts() == ["acme/widgets": 3])
    }

    @Test(arguments: Backend.allCases)
    func aPullRequestListingKeepsItsETagAndNewestUpdate(backend: Backend) async throws {
        let store = try await StoreUnderTest(backend)
        let (repositoryID, _) = try await Self.taggedRepositories(store)
        #expect(try store.writer.pullRequestListing(repositoryID: repositoryID) == StoredPullRequestListing())
        try store.writer.recordPullRequestListing(
            repositoryID: repositoryID, etag: "W/\"1\"", updatedThrough: "2024-05-01T00:00:00Z", at: Self.day(1))
        try store.writer.recordPullRequestListing(
            repositoryID: repositoryID, etag: "W/\"2\"", updatedThrough: "2024-05-02T00:00:00Z", at: Self.day(2))
        #expect(
            try store.writer.pullRequestListing(repositoryID: repositoryID)
                == StoredPullRequestListing(
                    etag: "W/\"2\"", updatedThrough: "2024-05-02T00:00:00Z", listedAt: ISO8601Timestamp.formatMilliseconds(Self.day(2))))
        // A 304 changes only when it was asked.
        try store.writer.recordPullRequestListingUnchanged(repositoryID: repositoryID, at: Self.day(3))
        #expect(
            try store.writer.pullRequestListing(repositoryID: repositoryID).listedAt == ISO8601Timestamp.formatMilliseconds(Self.day(3)))
        #expect(try store.writer.pullRequestListing(repositoryID: repositoryID).etag == "W/\"2\"")
    }
}
