import MirrorTestSupport
import Foundation
import GitHubSim
import SQLite
import Synchronization
import Testing

/// Issue "a mirror that never loses history": each lie a server can tell
/// after a push, told to the real `commitsctl` through `HostileGitHub`. None
/// may remove or change a stored commit; each is one error line and exit 1;
/// the token appears nowhere; a sane server afterwards converges exactly.
@Suite struct ServerInconsistencyCLITests {
    /// Mirrors the first history, then "pushes" 30 commits for the lie to hide.
    func mirroredThenPushed(_ harness: HostileHarness) async throws -> Set<String> {
        let first = try await harness.sync()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try harness.store.onBranchSHAs() == harness.reachable)
        try harness.push(30)
        return try harness.facts()
    }

    @Test func anEmptyFirstPageAfterAPushRemovesNothing() async throws {
        try await withRunning(HostileHarness.start()) { harness in
            let before = try await mirroredThenPushed(harness)
            harness.proxy.tamper { request, answer in
                guard request.isFirstListingPage else { return }
                answer.text = "[]"
                answer.setHeader("Link", nil)
            }
            let result = try await harness.sync()
            try await harness.expectRefused(
                result, before: before, mentioning: ["inconsistent", "was empty", "nothing stored was changed"])
            #expect(try harness.facts() == before)
            try await harness.expectConverges()
        }
    }

    @Test func aListingWithoutItsHeadRemovesNothing() async throws {
        try await withRunning(HostileHarness.start()) { harness in
            let before = try await mirroredThenPushed(harness)
            // The probe says X; the listing pinned to X leaves X out.
            harness.proxy.tamper { request, answer in
                guard request.isFirstListingPage else { return }
                answer.elements = Array(answer.elements.dropFirst())
            }
            let result = try await harness.sync()
            try await harness.expectRefused(result, before: before, mentioning: ["inconsistent", "starts with"])
            #expect(try harness.facts() == before)
            try await harness.expectConverges()
        }
    }

    @Test func anotherRepositoryUnderTheSameNameIsRefused() async throws {
        try await withRunning(HostileHarness.start(behind: 0)) { harness in
            #expect(try await harness.sync().status == 0)
            let before = try harness.facts()
            // Same owner/name, another GitHub id and history (a wrong --api-url, or deleted and recreated).
            let impostor = try await HostileHarness.start(
                behind: 0,
                repository: SimRepository.widgets(id: 999, SyntheticSpec(commits: 300, authors: 5, mergeEvery: 4, seed: 99)))
            try await withRunning(impostor) { impostor in
                let result = try await harness.sync(apiURL: impostor.proxy.baseURL)
                try await harness.expectRefused(result, before: before, mentioning: ["id 501", "id 999", "nothing was changed"])
                #expect(try harness.facts() == before)
                let check = try await harness.commitsctl(["check"])
                #expect(check.status == 0, "\(check.stdout)")
            }
        }
    }

    @Test(arguments: ["file:///etc/passwd", "gopher://127.0.0.1:70/1", "http://127.0.0.2:1/repositories/501/commits?page=2"])
    func aNextLinkOffTheAPIIsNeitherFollowedNorSaved(_ link: String) async throws {
        try await withRunning(HostileHarness.start(behind: 0)) { harness in
            let pages = Atomic<Int>(0)
            harness.proxy.tamper { request, answer in
                // The third page of the first sync points somewhere else.
                guard request.isListing, pages.add(1, ordering: .relaxed).newValue == 3 else { return }
                answer.setHeader("Link", "<\(link)>; rel=\"next\"")
            }
            let result = try await harness.sync()
            try await harness.expectRefused(result, before: [], mentioning: ["next-page link", "was not followed or saved"])
            #expect(harness.proxy.requests.allSatisfy { !$0.target.contains("passwd") })
            let resumePoints = try harness.store.resumePoints()
            #expect(resumePoints.allSatisfy { $0.hasPrefix(harness.proxy.baseURL) }, "\(resumePoints)")
            #expect(try harness.store.onBranchSHAs().count == 200, "the two pages before the bad link are kept")
            try await harness.expectConverges()
        }
    }

    /// A store an older version left with a poisoned checkpoint still converges.
    @Test func aPoisonedResumePointLeftByAnOlderVersionIsNeverFollowed() async throws {
        try await withRunning(HostileHarness.start()) { harness in
            _ = try await mirroredThenPushed(harness)
            let head = try harness.simulator.headSHA(owner: "acme", name: "widgets")
            do {
                let connection = try Connection(path: harness.db)
                try connection.execute(
                    """
                    INSERT INTO sync_walks (repository_id, branch, head_sha, next_url, pages_done)
                    SELECT id, 'main', ?, 'file:///etc/passwd', 1 FROM repositories
                    """, [head])
                try connection.execute("INSERT INTO sync_frontier (walk_id, sha) VALUES (last_insert_rowid(), ?)", [head])
            }
            let result = try await harness.sync()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(harness.proxy.requests.allSatisfy { !$0.target.contains("passwd") })
            #expect(try harness.store.onBranchSHAs() == harness.reachable)
            #expect(try await harness.commitsctl(["check"]).status == 0)
        }
    }

    @Test func aRelativeNextLinkIsResolvedAgainstItsPage() async throws {
        try await withRunning(HostileHarness.start(behind: 0)) { harness in
            let base = harness.proxy.baseURL
            harness.proxy.tamper { request, answer in
                guard request.isListing, let link = answer.header("Link") else { return }
                answer.setHeader("Link", link.replacingOccurrences(of: base, with: ""))
            }
            let result = try await harness.sync()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.store.onBranchSHAs() == harness.reachable)
        }
    }

    /// A `last` link numbering a page beyond any history (the largest or the
    /// smallest number a 64-bit integer holds, zero) is no page count: the sync
    /// reads the listing as if it had none, never overflows on it, and stores it whole.
    @Test(arguments: ["9223372036854775807", "-9223372036854775808", "0"])
    func anAbsurdLastPageIsNoPageCount(_ number: String) async throws {
        try await withRunning(HostileHarness.start(behind: 0)) { harness in
            harness.proxy.tamper { request, answer in
                guard request.isListing, let link = answer.header("Link") else { return }
                let next = link.split(separator: ",").filter { !$0.contains("rel=\"last\"") }
                let last = "<\(harness.proxy.baseURL)/repositories/501/commits?per_page=100&page=\(number)>; rel=\"last\""
                answer.setHeader("Link", (next.map(String.init) + [last]).joined(separator: ","))
            }
            let result = try await harness.sync()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.store.onBranchSHAs() == harness.reachable)
        }
    }

    @Test func aParentNeverListedLeavesTheBranchIncompleteNotDamaged() async throws {
        try await withRunning(HostileHarness.start()) { harness in
            let before = try await mirroredThenPushed(harness)
            // One of the pushed commits (not the head) is left out of every listing.
            let pushed = try harness.reachable.subtracting(harness.store.onBranchSHAs())
            let head = try harness.simulator.headSHA(owner: "acme", name: "widgets")
            let hidden = pushed.subtracting([head]).sorted().first!
            harness.proxy.tamper { request, answer in
                guard request.isListing else { return }
                answer.elements = answer.elements.filter { $0["sha"] as? String != hidden }
            }
            let result = try await harness.sync()
            try await harness.expectRefused(result, before: before, mentioning: ["inconsistent", hidden])
            #expect(try !harness.store.onBranchSHAs().contains(hidden))

            // The next ordinary push, the server still lying: never "complete", never damaged.
            try harness.push(5)
            let again = try await harness.sync()
            try await harness.expectRefused(again, before: before, mentioning: ["inconsistent"])
            try await harness.expectConverges()
        }
    }

    @Test func paginationThatIgnoresPageIsStopped() async throws {
        try await withRunning(HostileHarness.start(behind: 0)) { harness in
            let firstPage = Mutex<HostileGitHub.Answer?>(nil)
            let base = harness.proxy.baseURL
            // Every page is page 1 again, always advertising one more.
            harness.proxy.tamper { request, answer in
                guard request.isListing else { return }
                let page = Int(request.query["page"] ?? "1") ?? 1
                var same = firstPage.withLock { stored in
                    if stored == nil { stored = answer }
                    return stored!
                }
                same.setHeader(
                    "Link",
                    "<\(base)/repositories/501/commits?sha=\(request.query["sha"] ?? "")&per_page=100&page=\(page + 1)>; rel=\"next\"")
                answer = same
            }
            let result = try await harness.sync()
            try await harness.expectRefused(result, before: [], mentioning: ["inconsistent", "repeats an earlier page"])
            #expect(harness.proxy.requests.filter(\.isListing).count <= 3)
        }
    }

    @Test func anUnconfirmedRewriteMarksNothing() async throws {
        try await withRunning(HostileHarness.start(behind: 0)) { harness in
            #expect(try await harness.sync().status == 0)
            try harness.simulator.moveHead(owner: "acme", name: "widgets", back: 40)
            let before = try harness.facts()
            // GitHub's compare contradicts the listed history.
            harness.proxy.tamper { request, answer in
                guard request.path.contains("/compare/") else { return }
                answer.text = answer.text.replacingOccurrences(of: "\"behind\"", with: "\"ahead\"")
            }
            let result = try await harness.sync()
            try await harness.expectRefused(result, before: before, mentioning: ["inconsistent", "compare calls it ahead"])
            let visible = try await harness.commitsctl(["query"])
            #expect(visible.lines.count == HostileHarness.commits, "nothing was hidden")
            try await harness.expectConverges()
        }
    }
}

/// A confirmed force-push keeps every commit: marked, hidden by default,
/// shown on request, removed only by `commitsctl prune`.
@Suite struct HistoryRewriteCLITests {
    @Test func aConfirmedForcePushKeepsTheOrphansHiddenAndCheckPasses() async throws {
        try await withRunning(HostileHarness.start(behind: 0)) { harness in
            #expect(try await harness.sync().status == 0)
            let before = try harness.facts()
            try harness.simulator.moveHead(owner: "acme", name: "widgets", back: 60)
            let onBranch = try harness.reachable
            let orphans = HostileHarness.commits - onBranch.count

            let result = try await harness.sync(apiURL: harness.simulator.baseURL)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("\(orphans) left the branch (history rewritten; kept, hidden from queries)"), "\(result.stdout)")
            #expect(try harness.facts() == before, "every commit is still stored, unchanged")
            try harness.expectNoLeak(result)

            let hidden = try await harness.commitsctl(["query", "--format", "ndjson"])
            #expect(hidden.lines.count == onBranch.count)
            let shown = try await harness.commitsctl(["query", "--include-rewritten", "--format", "ndjson"])
            #expect(shown.lines.count == HostileHarness.commits)
            let check = try await harness.commitsctl(["check"])
            #expect(check.status == 0, "\(check.stdout)")

            // Forward again: the marked commits are back on the branch.
            try harness.push(60)
            let back = try await harness.sync(apiURL: harness.simulator.baseURL)
            #expect(back.stdout.contains("\(orphans) back on the branch"), "\(back.stdout)")
            #expect(try await harness.commitsctl(["query"]).lines.count == HostileHarness.commits)
        }
    }

    @Test func pruneIsTheOnlyWayOrphansLeaveAndItBacksUpFirst() async throws {
        try await withRunning(HostileHarness.start(behind: 0)) { harness in
            #expect(try await harness.sync().status == 0)
            try harness.simulator.moveHead(owner: "acme", name: "widgets", back: 60)
            #expect(try await harness.sync().status == 0)
            let onBranch = try harness.reachable
            let prune = try await harness.commitsctl(["prune"])
            #expect(prune.status == 0, "\(prune.stderr)")
            #expect(prune.stdout.contains("pruned \(HostileHarness.commits - onBranch.count) off-branch commits"), "\(prune.stdout)")
            let backup = try #require(
                try FileManager.default.contentsOfDirectory(atPath: harness.directory.url.path)
                    .first { $0.contains(".backup-prune-") })
            #expect(
                try StoreInspection(harness.directory.path(backup)).memberSHAs(of: HostileHarness.repository).count
                    == HostileHarness.commits)
            #expect(try harness.store.onBranchSHAs() == onBranch)
            #expect(try await harness.commitsctl(["check"]).status == 0)
        }
    }
}

/// Issue acceptance 2: the empty-page lie replayed on the real swift-evolution history.
@Suite struct DatasetEmptyPageTests {
    @Test(.enabled(if: PackagePaths.hasDataset, "../shared/datasets not present: skipping the swift-evolution empty-page replay"))
    func swiftEvolutionKeepsEveryCommitThroughAnEmptyPage() async throws {
        let harness = try await HostileHarness.start(
            behind: 3,
            repository: SimRepository(
                owner: "acme", name: "widgets", id: 501, source: .dataset(path: PackagePaths.swiftEvolutionDataset)))
        try await withRunning(harness) { harness in
            let first = try await harness.sync()
            #expect(first.status == 0, "\(first.stderr)")
            let mirrored = try harness.store.onBranchSHAs()
            #expect(mirrored == (try harness.reachable))
            let before = try harness.facts()
            try harness.push(3)
            harness.proxy.tamper { request, answer in
                guard request.isFirstListingPage else { return }
                answer.text = "[]"
                answer.setHeader("Link", nil)
            }
            let result = try await harness.sync()
            try await harness.expectRefused(result, before: before, mentioning: ["was empty"])
            #expect(try harness.store.onBranchSHAs() == mirrored, "0 commits removed")
            try await harness.expectConverges()
            #expect(try harness.store.onBranchSHAs().count == 7_807)
            print(
                "swift-evolution empty-page replay: \(mirrored.count) stored before, \(mirrored.count) after the lie, 7807 after the sane sync"
            )
        }
    }
}
