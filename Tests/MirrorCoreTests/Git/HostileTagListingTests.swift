import Foundation
import GitHubSim
import MirrorModel
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// Both tag readers against github-sim's hostile tags (`FaultPlan.hostileTags`):
/// a tag of a tree, of a blob, a chain and a cycle of tag objects, a name git
/// refuses and a flood of tags. Each is answered without failing the listing of
/// the repository's own tags, except a listing past its limits, which fails
/// whole and quickly.
@Suite struct HostileTagListingTests {
    /// Both readers' answers with `hostile` on, and the repository's own tags read before it was.
    static func read(
        _ hostile: HostileTag, limits: TagLimits = TagLimits()
    ) async throws -> (git: TagListing, rest: TagListing, honest: [AnnouncedTag], head: String) {
        let simulator = try await TagReaders.simulator([TagReaders.taggedSynthetic()], hostile: [hostile])
        return try await withRunning(simulator) { simulator async throws in
            let honest = try await TagReaders.lsRemoteTags(TagReaders.cloneURL(simulator)).filter { !$0.name.contains("hostile") }
            let head = try await TagReaders.git(["ls-remote", TagReaders.cloneURL(simulator), "HEAD"]).stdout.prefix(40)
            let git = try await TagReaders.fetcher(simulator).listTags(limits: limits)
            let (rest, _) = try await TagReaders.overREST(try TagReaders.client(simulator), limits: limits)
            // The repository's own tags are read as ever beside the hostile one.
            #expect(TagReaders.bare(git.tags.filter { !$0.name.contains("hostile") }) == honest)
            #expect(TagReaders.bare(rest.tags.filter { !$0.name.contains("hostile") }) == honest)
            return (git, rest, honest, String(head))
        }
    }

    @Test func anAnnotatedTagOfATreeHasNoCommitOverRESTAndItsTreeIdOverGit() async throws {
        let (git, rest, _, _) = try await Self.read(.tree)
        let overGit = try #require(git.tags.first { $0.name == "hostile-tree" })
        let overREST = try #require(rest.tags.first { $0.name == "hostile-tree" })
        // ls-refs cannot say the peeled object is a tree: the sync checks that such a commit exists.
        #expect(overGit.isAnnotated && overGit.commitSHA != nil && overGit.objectSHA == overREST.objectSHA)
        #expect(overREST.isAnnotated && overREST.commitSHA == nil)
        #expect(
            overREST.annotation
                == TagAnnotation(
                    taggerName: "Mallory", taggerEmail: "mallory@example.invalid",
                    taggedAt: "2023-11-14T22:13:20Z", message: "hostile hostile-tree\n"))
    }

    @Test func aLightweightTagOfABlobHasNoCommitOverREST() async throws {
        let (git, rest, _, _) = try await Self.read(.blob)
        let overGit = try #require(git.tags.first { $0.name == "hostile-blob" })
        let overREST = try #require(rest.tags.first { $0.name == "hostile-blob" })
        #expect(!overGit.isAnnotated && overGit.commitSHA == overGit.objectSHA)
        #expect(!overREST.isAnnotated && overREST.commitSHA == nil && overREST.objectSHA == overGit.objectSHA)
    }

    @Test func aChainOfTagObjectsIsFollowedToItsCommitAndTooLongAChainIsSkipped() async throws {
        let (git, rest, _, head) = try await Self.read(.chain)
        let overGit = try #require(git.tags.first { $0.name == "hostile-chain" })
        let overREST = try #require(rest.tags.first { $0.name == "hostile-chain" })
        #expect(overGit.isAnnotated && overGit.commitSHA == head)
        #expect(overREST.isAnnotated && overREST.commitSHA == head && overREST.objectSHA == overGit.objectSHA)
        // The annotation is the ref's own tag object's, not the inner one's.
        #expect(overREST.annotation?.message == "hostile hostile-chain\n")

        var limits = TagLimits()
        limits.maximumChainHops = 1
        let (_, short, _, _) = try await Self.read(.chain, limits: limits)
        #expect(!short.tags.contains { $0.name == "hostile-chain" })
        #expect(short.skipped == [SkippedTag(name: "hostile-chain", reason: "it leads through more than 1 tag objects")])
    }

    @Test func aCycleOfTagObjectsIsSkippedOverRESTNamingTheTag() async throws {
        let (git, rest, _, _) = try await Self.read(.cycle)
        let overGit = try #require(git.tags.first { $0.name == "hostile-cycle" })
        // ls-refs cannot peel a cycle, so git reads it as a lightweight tag of an object no commit has.
        #expect(!overGit.isAnnotated && overGit.commitSHA == overGit.objectSHA)
        #expect(!rest.tags.contains { $0.name == "hostile-cycle" })
        #expect(rest.skipped.count == 1)
        #expect(rest.skipped.first?.name == "hostile-cycle" && rest.skipped.first?.reason.contains("a cycle") == true)
        #expect(rest.skipped.first?.description.hasPrefix("tag 'hostile-cycle' skipped: ") == true)
    }

    @Test func aNameGitRefusesIsSkippedAndReportedByBothReaders() async throws {
        let (git, rest, honest, _) = try await Self.read(.dotDotName)
        let skipped = SkippedTag(name: "hostile..name", reason: "git refuses the name: it contains '..'")
        #expect(git.skipped == [skipped] && rest.skipped == [skipped])
        #expect(git.tags.count == honest.count && rest.tags.count == honest.count)
    }

    @Test func aHundredThousandTagsFailTheListingAtItsLimitAndAreReadWhenAllowed() async throws {
        let simulator = try await TagReaders.simulator([TagReaders.taggedSynthetic()], hostile: [.hundredThousand])
        try await withRunning(simulator) { simulator async throws in
            let fetcher = try TagReaders.fetcher(simulator)
            await #expect(throws: TagListingError.tooManyTags(limit: 50_000)) { try await fetcher.listTags() }
            var small = TagLimits()
            small.maximumBytes = 1 << 20
            await #expect(throws: TagListingError.tooLarge(limit: 1 << 20)) { try await fetcher.listTags(limits: small) }

            // Parsed as it arrives, the whole listing is read when the limits allow it.
            var large = TagLimits()
            large.maximumTags = 200_000
            let all = try await fetcher.listTags(limits: large)
            #expect(all.tags.count == 28 + 100_000 && all.skipped.isEmpty)
            #expect(all.tags.last?.name == "bulk/099999" && all.tags.last?.isAnnotated == false)
        }
    }

    /// REST's listing refused at the same limits: the repository's own 28 tags against limits below
    /// them, since a listing of a hundred thousand refs costs the simulator more than the check needs.
    @Test func aRESTListingPastItsLimitsIsRefusedWhole() async throws {
        let simulator = try await TagReaders.simulator([TagReaders.taggedSynthetic()])
        try await withRunning(simulator) { simulator async throws in
            let client = try TagReaders.client(simulator)
            var few = TagLimits()
            few.maximumTags = 27
            await #expect(throws: TagListingError.tooManyTags(limit: 27)) {
                try await client.tagRefs(TagReaders.widgets, etag: nil, limits: few)
            }
            var small = TagLimits()
            small.maximumBytes = 4_096
            await #expect(throws: TagListingError.tooLarge(limit: 4_096)) {
                try await client.tagRefs(TagReaders.widgets, etag: nil, limits: small)
            }
            few.maximumTags = 28
            guard case .listed(let refs, _) = try await client.tagRefs(TagReaders.widgets, etag: nil, limits: few) else {
                Issue.record("an unconditional listing answered 304")
                return
            }
            #expect(refs.tags.count == 28)
        }
    }
}
