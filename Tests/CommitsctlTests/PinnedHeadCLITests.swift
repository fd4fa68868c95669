import Curl
import Foundation
import GitHubSim
import MirrorTestSupport
import Synchronization
import Testing

/// Issue #25, items 1 and 2: a walk is pinned to the head the branch had when it
/// began. A head GitHub no longer serves (one bad probe answer, a push forced
/// away and collected) must not block the branch, and what a walk stored for a
/// head the branch no longer reaches must not be answered as branch history.
/// Real `commitsctl` through `HostileGitHub`, as every "whatever the server
/// says" test.
@Suite struct PinnedHeadCLITests {
    /// What the head probe lies about.
    enum BadHead: String, CaseIterable, CustomTestStringConvertible {
        /// A sha whose listing then answers 500 (after the client's retries).
        case listingFails
        /// A sha whose listing starts with another commit.
        case inconsistentListing
        /// The head commit's tree: a sha, but no commit.
        case tree

        var testDescription: String { rawValue }
    }

    @Test(arguments: BadHead.allCases)
    func oneBadHeadProbeAnswerNeverBlocksTheBranch(_ bad: BadHead) async throws {
        try await withRunning(HostileHarness.start()) { harness in
            #expect(try await harness.sync().status == 0)
            try harness.push(30)
            let before = try harness.facts()
            let head = try harness.simulator.headSHA(owner: "acme", name: "widgets")
            let bogus = bad == .tree ? try await treeSHA(of: head, harness) : "0badbad0" + String(repeating: "5", count: 32)
            harness.proxy.tamper { request, answer in
                if request.isHeadProbe {
                    answer.status = 200
                    answer.text = bogus
                    answer.setHeader("ETag", "\"\(bogus)\"")
                } else if request.isFirstListingPage, request.query["sha"] == bogus, bad == .listingFails {
                    answer.status = 500
                    answer.text = #"{"message":"Server Error"}"#
                }
            }
            if bad == .inconsistentListing {
                // The listing of the bogus sha is the real head's listing.
                let real = try await listing(of: head, harness)
                harness.proxy.tamper { request, answer in
                    if request.isHeadProbe {
                        answer.status = 200
                        answer.text = bogus
                    } else if request.isFirstListingPage, request.query["sha"] == bogus {
                        answer.status = 200
                        answer.body = real
                    }
                }
            }
            let refused = try await harness.sync()
            let expected =
                switch bad {
                case .listingFails: ["answered 500"]
                case .inconsistentListing: ["inconsistent", "starts with \(head)"]
                case .tree: ["inconsistent", bogus]
                }
            try await harness.expectRefused(refused, before: before, mentioning: expected)
            #expect(!refused.stderr.contains("not found"), "\(refused.stderr)")
            #expect(try harness.facts() == before)

            // GitHub is sane again: the walk pinned to the bogus sha must not stand in the way.
            try await harness.expectConverges()
            // And it stays out of the way: a push later, the next sync is exact too.
            try harness.push(10)
            try await harness.expectConverges()
            #expect(try harness.store.resumePoints().isEmpty)
        }
    }

    /// A push whose walk is interrupted, then forced back before the walk
    /// resumes: the walk is dropped and what it stored is marked off the branch
    /// (kept, hidden). With `collected`, GitHub has also forgotten the pushed
    /// head (404 for anything naming it), as after a garbage collection.
    @Test(arguments: [false, true])
    func aPushForcedAwayBeforeItsWalkResumesLeavesOnlyTheBranch(collected: Bool) async throws {
        try await withRunning(HostileHarness.start(behind: 400)) { harness in
            #expect(try await harness.sync().status == 0)
            let mirrored = try harness.reachable
            try harness.push(300)
            let pushedHead = try harness.simulator.headSHA(owner: "acme", name: "widgets")
            let interrupted = try await syncInterruptedAfterFirstPage(harness)
            #expect(interrupted.status == 1, "\(interrupted.stderr)")
            let storedForPush = try harness.store.memberSHAs(of: HostileHarness.repository).subtracting(mirrored)
            #expect(storedForPush.count == 100, "the walk stored its first page: \(storedForPush.count)")
            let before = try harness.facts()

            try harness.simulator.moveHead(owner: "acme", name: "widgets", back: 300)
            if collected {
                harness.proxy.tamper { request, answer in
                    guard request.target.contains(pushedHead) else { return }
                    answer.status = 404
                    answer.text = #"{"message":"Not Found"}"#
                }
            }
            let result = try await harness.sync()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("\(storedForPush.count) left the branch"), "\(result.stdout)")
            try harness.expectNoLeak(result)
            harness.expectBoundedMemory(result)
            #expect(try harness.facts() == before, "every commit stored is still there, unchanged")
            #expect(try harness.store.onBranchSHAs() == mirrored, "nothing of the abandoned head answers as the branch")
            #expect(try harness.store.resumePoints().isEmpty)
            let listed = try await harness.commitsctl(["query", "--format", "ndjson"])
            #expect(listed.lines.count == mirrored.count)
            #expect(!listed.stdout.contains(pushedHead))
            let check = try await harness.commitsctl(["check"])
            #expect(check.status == 0, "\(check.stdout)")

            // Pushed again for real: the same commits come back on the branch.
            harness.proxy.tamper(nil)
            try harness.push(300)
            try await harness.expectConverges()
        }
    }

    /// The worst case of the round-3 battery: a head shown once (300 commits
    /// ahead), walked one page, then withdrawn. The branch stays its own history.
    @Test func aHeadShownOnceAndWithdrawnIsNeverCompletedAsTheBranch() async throws {
        try await withRunning(HostileHarness.start(behind: 400)) { harness in
            #expect(try await harness.sync().status == 0)
            let mirrored = try harness.reachable
            try harness.push(300)
            let shownOnce = try harness.simulator.headSHA(owner: "acme", name: "widgets")
            try harness.simulator.moveHead(owner: "acme", name: "widgets", back: 300)
            let probes = Atomic<Int>(0)
            harness.proxy.tamper { request, answer in
                if request.isHeadProbe, probes.add(1, ordering: .relaxed).newValue == 1 {
                    answer.status = 200
                    answer.text = shownOnce
                } else if request.isListing, request.query["page"] == "2" {
                    answer.status = 422
                    answer.text = #"{"message":"Validation Failed"}"#
                }
            }
            let interrupted = try await harness.sync()
            #expect(interrupted.status == 1, "\(interrupted.stderr)")
            #expect(try harness.store.memberSHAs(of: HostileHarness.repository).count == mirrored.count + 100)

            harness.proxy.tamper(nil)
            let result = try await harness.sync()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("100 left the branch"), "\(result.stdout)")
            try harness.expectNoLeak(result)
            harness.expectBoundedMemory(result)
            #expect(try harness.store.onBranchSHAs() == mirrored)
            let check = try await harness.commitsctl(["check"])
            #expect(check.status == 0, "\(check.stdout)")
            // Nothing more to do: the next sync is two conditional requests (the head, the tags).
            let idle = try await harness.sync()
            #expect(idle.status == 0, "\(idle.stderr)")
            #expect(idle.stdout.contains("@main: 0 new, 0 updated, 2 requests (2 not modified)"), "\(idle.stdout)")
        }
    }

    /// A sync stopped by a 422 on the second page of its listing: the first page is kept.
    private func syncInterruptedAfterFirstPage(_ harness: HostileHarness) async throws -> ProcessResult {
        harness.proxy.tamper { request, answer in
            guard request.isListing, request.query["page"] == "2" else { return }
            answer.status = 422
            answer.text = #"{"message":"Validation Failed"}"#
        }
        defer { harness.proxy.tamper(nil) }
        return try await harness.sync()
    }

    /// GitHub (and github-sim) refuse a request without a User-Agent.
    private static let headers: HTTPHeaders = [("User-Agent", "commits-mirror-tests")]

    private func treeSHA(of commit: String, _ harness: HostileHarness) async throws -> String {
        let response = try await HTTPClient().send(
            HTTPRequest(url: "\(harness.simulator.baseURL)/repos/acme/widgets/commits/\(commit)", headers: Self.headers))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let tree = (json["commit"] as? [String: Any])?["tree"] as? [String: Any]
        return try #require(tree?["sha"] as? String)
    }

    /// The body of the first page of the real listing of `sha`.
    private func listing(of sha: String, _ harness: HostileHarness) async throws -> [UInt8] {
        let response = try await HTTPClient().send(
            HTTPRequest(url: "\(harness.simulator.baseURL)/repos/acme/widgets/commits?sha=\(sha)&per_page=100", headers: Self.headers))
        return response.body
    }
}

extension HostileServer.Request {
    /// `GET /repos/{owner}/{repo}/commits/{branch}`: the head probe.
    var isHeadProbe: Bool { path.contains("/commits/") && !path.hasSuffix("/commits") }
}
