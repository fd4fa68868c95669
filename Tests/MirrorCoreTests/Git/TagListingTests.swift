import Foundation
import GitHubSim
import MirrorModel
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// A repository's tags read over git (`listTags`) and over REST (`tagRefs`,
/// `readAnnotations`) from github-sim on loopback, each compared with what
/// real git says of the same repository.
@Suite struct TagListingTests {
    @Test func aSyntheticHistorysTagsReadOverGitAndRESTAreWhatGitLists() async throws {
        let simulator = try await TagReaders.simulator([TagReaders.taggedSynthetic()])
        try await withRunning(simulator) { simulator async throws in
            let expected = try await TagReaders.lsRemoteTags(TagReaders.cloneURL(simulator))
            #expect(expected.count == 28 && expected.filter(\.isAnnotated).count == 7)

            let overGit = try await TagReaders.fetcher(simulator).listTags()
            #expect(overGit.requests == 2 && overGit.skipped.isEmpty)
            #expect(TagReaders.bare(overGit.tags) == expected)

            let client = try TagReaders.client(simulator)
            let (overREST, etag) = try await TagReaders.overREST(client)
            #expect(etag != nil && overREST.skipped.isEmpty)
            #expect(TagReaders.bare(overREST.tags) == expected)
            #expect(overREST.tags.filter(\.isAnnotated).allSatisfy { $0.annotation?.taggedAt != nil })
            #expect(overREST.requests == 1 + 7)
            #expect(client.usage.byKind[.tagRefs]?.requests == 1)
            #expect(client.usage.byKind[.tagObject]?.requests == 7)
        }
    }

    @Test(.enabled(if: PackagePaths.hasAlamofire, "needs ../shared/datasets/alamofire.bundle"))
    func alamofiresTagsAndAnnotationsAreWhatGitSaysOfItsBareClone() async throws {
        let scratch = try TemporaryDirectory()
        let source = scratch.path("alamofire.git")
        _ = try await TagReaders.git(["clone", "--quiet", "--bare", PackagePaths.alamofireBundle, source])
        let alamofire = RepositoryName(owner: "Alamofire", name: "Alamofire")
        let simulator = try await TagReaders.simulator([
            SimRepository(owner: "Alamofire", name: "Alamofire", id: 9, source: .gitRepository(path: source))
        ])
        try await withRunning(simulator) { simulator async throws in
            let expected = try await TagReaders.forEachRef(in: source)
            #expect(expected.count == 107 && expected.filter(\.isAnnotated).count == 4)
            #expect(TagReaders.bare(expected) == (try await TagReaders.lsRemoteTags(source)))

            let overGit = try await TagReaders.fetcher(simulator, alamofire).listTags()
            #expect(overGit.skipped.isEmpty && TagReaders.bare(overGit.tags) == TagReaders.bare(expected))

            let (overREST, _) = try await TagReaders.overREST(try TagReaders.client(simulator), alamofire)
            #expect(overREST.skipped.isEmpty)
            #expect(overREST.tags.sorted { $0.name < $1.name } == expected)
        }
    }

    @Test func aMovedAndADeletedTagAreSeenByBothReadersAndAnUnchangedListingIsAFree304() async throws {
        let simulator = try await TagReaders.simulator([TagReaders.taggedSynthetic()])
        try await withRunning(simulator) { simulator async throws in
            let client = try TagReaders.client(simulator)
            let fetcher = try TagReaders.fetcher(simulator)
            let (before, etag) = try await TagReaders.overREST(client)
            let head = try #require(try await TagReaders.git(["ls-remote", TagReaders.cloneURL(simulator), "HEAD"]).lines.first)
                .prefix(40)
            let annotatedBefore = try #require(before.tags.first { $0.name == "v1.3.0" })
            #expect(annotatedBefore.isAnnotated && annotatedBefore.commitSHA != String(head))

            try await TagReaders.moveTag(simulator, "name=v1.2.0&at=\(head)")
            try await TagReaders.moveTag(simulator, "name=v1.3.0&at=\(head)&message=Moved%20to%20the%20head")
            try await TagReaders.moveTag(simulator, "name=v1.1.0", method: "DELETE")

            let overGit = try await fetcher.listTags()
            #expect(TagReaders.bare(overGit.tags) == (try await TagReaders.lsRemoteTags(TagReaders.cloneURL(simulator))))
            guard case .listed(let refs, let newETag) = try await client.tagRefs(TagReaders.widgets, etag: etag) else {
                Issue.record("a changed listing answered 304")
                return
            }
            #expect(newETag != nil && newETag != etag)
            // The tags the listing did not change keep their stored annotations: only the moved one is read.
            let objectsBefore = client.usage.byKind[.tagObject]?.requests ?? 0
            let after = try await client.readAnnotations(of: refs, in: TagReaders.widgets, known: before.tags)
            #expect(client.usage.byKind[.tagObject]?.requests == objectsBefore + 1 && after.requests == 1 + 1)
            #expect(TagReaders.bare(after.tags) == TagReaders.bare(overGit.tags))
            #expect(!after.tags.contains { $0.name == "v1.1.0" } && before.tags.contains { $0.name == "v1.1.0" })
            let moved = try #require(after.tags.first { $0.name == "v1.2.0" })
            #expect(!moved.isAnnotated && moved.commitSHA == String(head) && moved.annotation == nil)
            let reannotated = try #require(after.tags.first { $0.name == "v1.3.0" })
            #expect(reannotated.commitSHA == String(head) && reannotated.objectSHA != annotatedBefore.objectSHA)
            #expect(reannotated.annotation?.message.hasPrefix("Moved to the head") == true)

            let tallyBefore = client.usage.byKind[.tagRefs] ?? RequestTally()
            #expect(try await client.tagRefs(TagReaders.widgets, etag: newETag) == .notModified)
            let tally = (client.usage.byKind[.tagRefs] ?? RequestTally()) - tallyBefore
            #expect(tally == RequestTally(requests: 1, notModified: 1, points: 0))
        }
    }

    @Test func aRepositoryWithoutTagsListsNoneOverEitherReader() async throws {
        let plain = SimRepository(owner: "acme", name: "widgets", id: 7, source: .synthetic(SyntheticSpec(commits: 30, seed: 2)))
        let simulator = try await TagReaders.simulator([plain])
        try await withRunning(simulator) { simulator async throws in
            let overGit = try await TagReaders.fetcher(simulator).listTags()
            #expect(overGit.tags.isEmpty && overGit.skipped.isEmpty && overGit.requests == 2)
            let client = try TagReaders.client(simulator)
            // An empty listing carries an ETag, so the next one is a free 304.
            guard case .listed(let listing, let etag?) = try await client.tagRefs(TagReaders.widgets, etag: nil) else {
                Issue.record("no ETag for an empty tag listing")
                return
            }
            #expect(listing == TagListing(requests: 1))
            #expect(try await client.tagRefs(TagReaders.widgets, etag: etag) == .notModified)
        }
    }

    @Test(
        arguments: [
            ("v1.0", nil), ("-dash", nil), ("HEAD", nil), ("release/2.0-rc.1", nil), ("hostile..name", "it contains '..'"),
            ("a b", "it contains ' '"), ("x~1", "it contains '~'"), ("x^", "it contains '^'"), ("a:b", "it contains ':'"),
            ("a?", "it contains '?'"), ("a*", "it contains '*'"), ("a[", "it contains '['"), ("a\\b", "it contains '\\'"),
            ("/a", "it starts or ends with '/'"), ("a/", "it starts or ends with '/'"), ("a//b", "it contains '//'"),
            (".a", "a component starts with '.'"), ("a/.b", "a component starts with '.'"), ("a.", "it ends with '.'"),
            ("a.lock", "a component ends with '.lock'"), ("a.lock/b", "a component ends with '.lock'"),
            ("@", "'@' alone means HEAD"), ("a@{1}", "it contains '@{'"), ("tab\tname", "it contains a control character"),
            ("del\u{7F}", "it contains a control character"), ("", "it is empty"),
        ] as [(String, String?)])
    func tagNamesAreCheckedAsGitChecksRefNames(name: String, problem: String?) {
        #expect(TagName.problem(with: name) == problem)
    }
}
