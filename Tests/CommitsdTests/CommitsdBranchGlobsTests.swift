import Curl
import Foundation
import GitHubSim
import MirrorCore
import MirrorTestSupport
import SQLite
import Testing

/// commitsd with globs in `branches:` (issue #29, discovery): the repository's branches
/// are listed on every round, conditionally (an unchanged listing is a free 304); a new
/// matching branch is mirrored on a later round, exact; a deleted one is marked gone,
/// its commits kept, no longer polled; it comes back when it reappears. A real commitsd
/// process, github-sim on loopback, a real SQLite file, `commitsctl` for what users read.
@Suite(.serialized) struct CommitsdBranchGlobsTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var store: String { directory.path("state/commits.sqlite") }

    /// Each complete branch's head as the store has it.
    func storedHeads() -> [String: String] { StoreInspection(store).completeHeads() }

    /// The branch's state in the store (`active`, `gone`), `nil` before it has a row.
    func branchState(_ branch: String) -> String? {
        try? Connection(path: store, mode: .readOnly).prepare("SELECT state FROM repository_branches WHERE name = ?")
            .bind([branch]).first { $0.string(0) }
    }

    func storedCommits() throws -> Int {
        try Connection(path: store, mode: .readOnly).scalarInt("SELECT count(*) FROM commits") ?? -1
    }

    /// `commitsctl status --json`, by branch.
    func status() async throws -> [String: [String: Any]] {
        let result = try await run("commitsctl", ["status", "--json", "--db", store])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        return Dictionary(rows.map { ($0["branch"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// commitsd mirroring `release/*` of acme/widgets hourly, with its webhook
    /// listener, once it holds `release/1.0` (put 10 commits behind the head here):
    /// what the webhook tests start from. Stopped by the caller.
    func startListeningForWebhooks(_ simulator: GitHubSimulator) async throws -> (DaemonProcess, Int) {
        try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 10)
        let secretFile = try directory.write("webhook-secret", WebhookRig.secret + "\n")
        chmod(secretFile, 0o600)
        let daemon = try DaemonProcess.mirroringBranches(
            #"["release/*"]"#, from: simulator, in: directory, interval: nil,
            settings: "git_bootstrap: false\nwebhook_listen: 127.0.0.1:0\nwebhook_secret_file: \(secretFile)")
        let first = try simulator.branchHeads(owner: "acme", name: "widgets")["release/1.0"] ?? ""
        #expect(await waitUntil(timeout: .seconds(60)) { storedHeads() == ["release/1.0": first] }, "\(daemon.log)")
        return (daemon, try await daemon.listeningPort("webhook.listen="))
    }

    func queried(branch: String) async throws -> [String] {
        let result = try await run("commitsctl", ["query", "--branch", branch, "--format", "json", "--db", store])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        return records.compactMap { $0["sha"] as? String }
    }

    @Test func matchingBranchesArePickedUpOnALaterRoundAndGoneOnesAreMarkedAndKept() async throws {
        let simulator = try await startSimulator([("widgets", 3201, 200, 11)])
        try await withRunning(simulator) { simulator in
            try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 30)
            let daemon = try DaemonProcess.mirroringBranches(#"[main, "release/*"]"#, from: simulator, in: directory)
            defer { daemon.stop() }
            let heads = { try simulator.branchHeads(owner: "acme", name: "widgets") }
            #expect(try await waitUntil(timeout: .seconds(60)) { storedHeads() == (try heads()) }, "\(daemon.log)")

            // A branch the globs do not select, then one they do: only the second is mirrored, exact.
            try simulator.moveBranch(owner: "acme", name: "widgets", branch: "feature", back: 3)
            try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/2.0", back: 12)
            var wanted = try heads()
            wanted["feature"] = nil
            #expect(try await waitUntil(timeout: .seconds(60)) { storedHeads() == wanted }, "\(daemon.log)")
            let reached = try simulator.reachableSHAs(owner: "acme", name: "widgets", branch: "release/2.0")
            let listed = try await queried(branch: "release/2.0")
            #expect(Set(listed) == reached && listed.count == reached.count, "query --branch release/2.0 is exact")
            #expect(
                try await queried(branch: "release/*").count
                    == (try simulator.reachableSHAs(owner: "acme", name: "widgets", branch: "release/1.0")).union(reached).count)

            // Deleted on GitHub: gone in status, every commit kept, no longer polled.
            let commitsBefore = try storedCommits()
            try simulator.deleteBranch(owner: "acme", name: "widgets", branch: "release/2.0")
            #expect(
                await waitUntil(timeout: .seconds(60)) { branchState("release/2.0") == "gone" }, "\(daemon.log)")
            let gone = try await status()["release/2.0"]
            #expect((gone?["state_reason"] as? String)?.hasPrefix("branch deleted on GitHub") == true, "\(gone ?? [:])")
            #expect(try await status()["release/1.0"]?["state"] as? String == "active")
            #expect(try storedCommits() == commitsBefore, "nothing deleted")
            #expect(Set(try await queried(branch: "release/2.0")) == reached, "its commits stay queryable")
            let mainPolls = {
                daemon.log.split(separator: "\n").filter { $0.contains("sync finished") && $0.contains("branch=main") }.count
            }
            let polledGone = { daemon.log.split(separator: "\n").filter { $0.contains("branch=release/2.0") }.count }
            var polls = mainPolls()
            #expect(await waitUntil(timeout: .seconds(60)) { mainPolls() >= polls + 3 }, "\(daemon.log)")
            let goneLines = polledGone()
            polls = mainPolls()
            #expect(await waitUntil(timeout: .seconds(60)) { mainPolls() >= polls + 3 }, "\(daemon.log)")
            #expect(polledGone() == goneLines, "a gone branch is not polled: \(daemon.log)")

            // It comes back elsewhere: active again, exact at its new head.
            let back = try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/2.0", back: 25)
            #expect(
                try await waitUntil(timeout: .seconds(60)) {
                    branchState("release/2.0") == "active" && storedHeads()["release/2.0"] == back
                }, "\(daemon.log)")
            let row = try await status()["release/2.0"]
            #expect(row?["state"] as? String == "active" && row?["state_reason"] is NSNull, "\(row ?? [:])")
            let returned = try simulator.reachableSHAs(owner: "acme", name: "widgets", branch: "release/2.0")
            #expect(Set(try await queried(branch: "release/2.0")) == returned)

            daemon.signal(SIGTERM)  // commitsd writes what it spent when it stops
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
            // Every listing after the first is conditional: only the four that changed cost a point
            // (release/1.0 at start; feature and release/2.0, maybe together; the deletion; the return).
            let spent = try await run("commitsctl", ["status", "--requests", "--format", "json", "--db", store])
            let rows = try JSONSerialization.jsonObject(with: Data(spent.stdout.utf8)) as? [[String: Any]] ?? []
            let listings = rows.filter { $0["kind"] as? String == "branch_listing" }
            let requests = listings.map { $0["requests"] as? Int ?? 0 }.reduce(0, +)
            let points = listings.map { $0["points"] as? Int ?? 0 }.reduce(0, +)
            #expect(points >= 4 && points <= 5, "\(rows)")
            #expect(requests > points, "unchanged listings are free 304s: \(rows)")
        }
    }

    /// A listing that omits a branch GitHub still has (its pages shifted while read; here
    /// github-sim's `branchListingOmits`) does not mark it gone: it is asked for alone, once,
    /// it is still mirrored (a move is synced), and the unchanged listings after it (304s)
    /// ask nothing more.
    @Test func aBranchTheListingOmitsIsConfirmedOnceAndNotMarkedGone() async throws {
        let simulator = try await startSimulator([("widgets", 3204, 80, 14)])
        try await withRunning(simulator) { simulator in
            try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 10)
            try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/2.0", back: 4)
            let daemon = try DaemonProcess.mirroringBranches(#"["release/*"]"#, from: simulator, in: directory)
            defer { daemon.stop() }
            var heads = try simulator.branchHeads(owner: "acme", name: "widgets")
            heads["main"] = nil
            #expect(await waitUntil(timeout: .seconds(60)) { storedHeads() == heads }, "\(daemon.log)")

            var omitting = FaultPlan()
            omitting.branchListingOmits = ["release/1.0"]
            simulator.setFaults(omitting)
            #expect(
                await waitUntil(timeout: .seconds(60)) { daemon.log.contains("branches the listing lacked are still on GitHub") },
                "\(daemon.log)")
            let polls = {
                daemon.log.split(separator: "\n").filter { $0.contains("sync finished") && $0.contains("branch=release/2.0") }.count
            }
            let before = polls()
            #expect(await waitUntil(timeout: .seconds(60)) { polls() >= before + 3 }, "\(daemon.log)")
            #expect(branchState("release/1.0") == "active", "\(daemon.log)")
            #expect(!daemon.log.contains("branch gone from GitHub"), "\(daemon.log)")
            let moved = try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", forward: 5)
            #expect(
                await waitUntil(timeout: .seconds(60)) { storedHeads()["release/1.0"] == moved },
                "still mirrored though the listing lacks it: \(daemon.log)")

            daemon.signal(SIGTERM)  // commitsd writes what it spent when it stops
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
            let spent = try await run("commitsctl", ["status", "--requests", "--format", "json", "--db", store])
            let rows = try JSONSerialization.jsonObject(with: Data(spent.stdout.utf8)) as? [[String: Any]] ?? []
            let lookups = rows.filter { $0["kind"] as? String == "branch_lookup" }.map { $0["requests"] as? Int ?? 0 }.reduce(0, +)
            #expect(lookups == 1, "one confirmation, none on the unchanged listings after it: \(rows)")
        }
    }

    /// A reload that widens the globs selects from the listing commitsd has, even when the
    /// repository answers 304 (nothing changed on GitHub): the new branches are mirrored.
    @Test func aReloadThatChangesTheGlobsSelectsAgainFromAnUnchangedListing() async throws {
        let simulator = try await startSimulator([("widgets", 3202, 80, 12)])
        try await withRunning(simulator) { simulator in
            try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 10)
            try simulator.moveBranch(owner: "acme", name: "widgets", branch: "feature", back: 4)
            let daemon = try DaemonProcess.mirroringBranches(#"["release/*"]"#, from: simulator, in: directory)
            defer { daemon.stop() }
            let heads = try simulator.branchHeads(owner: "acme", name: "widgets")
            #expect(
                await waitUntil(timeout: .seconds(60)) { storedHeads() == ["release/1.0": heads["release/1.0"] ?? ""] },
                "\(daemon.log)")

            try DaemonProcess.writeConfiguration(
                ["name: acme/widgets\nbranches: \"*\"\ninterval: 1s"], from: simulator, in: directory, interval: nil,
                settings: "git_bootstrap: false")
            daemon.signal(SIGHUP)
            #expect(await waitUntil(timeout: .seconds(60)) { storedHeads() == heads }, "every branch: \(daemon.log)")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
        }
    }

    /// The branch listing is kept in the store (`branch_listings`) once the repository is
    /// stored (from the listing after its first sync): after a restart, the first listing
    /// is sent with its ETags and answered 304, so a restart costs no point.
    @Test func aRestartListsTheBranchesConditionallyOnTheKeptListing() async throws {
        let simulator = try await startSimulator([("widgets", 3203, 80, 13)])
        try await withRunning(simulator) { simulator in
            try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 10)
            let heads = try simulator.branchHeads(owner: "acme", name: "widgets")
            for run in 1...2 {
                simulator.resetStats()
                let daemon = try DaemonProcess.mirroringBranches(#""*""#, from: simulator, in: directory)
                defer { daemon.stop() }
                // The listing, then a sync of each branch (a 304 each on the second run).
                #expect(await waitUntil(timeout: .seconds(60)) { storedHeads() == heads }, "\(daemon.log)")
                #expect(await waitUntil(timeout: .seconds(30)) { simulator.stats().requests >= 1 + heads.count }, "\(daemon.log)")
                #expect(
                    await waitUntil(timeout: .seconds(30)) {
                        (try? Connection(path: store, mode: .readOnly).scalarInt("SELECT count(*) FROM branch_listings")) == 1
                    }, "\(daemon.log)")
                let stats = simulator.stats()
                if run == 2 {
                    #expect(stats.rateLimitUsed.values.reduce(0, +) == 0, "the restart cost no point: \(stats)")
                    #expect(stats.notModified == stats.requests, "\(stats)")
                }
                daemon.signal(SIGTERM)
                #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
            }
        }
    }

    /// A push webhook for a repository with globs lists its branches at once: a branch created
    /// (its first push) is mirrored long before the hourly round would list it.
    @Test func aPushWebhookListsTheRepositorysBranchesAtOnce() async throws {
        let simulator = try await startSimulator([("widgets", 3203, 60, 13)])
        try await withRunning(simulator) { simulator in
            let (daemon, port) = try await startListeningForWebhooks(simulator)
            defer { daemon.stop() }

            let created = try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/2.0", back: 3)
            let body = Array(
                #"{"ref":"refs/heads/release/2.0","before":"0000000000000000000000000000000000000000","after":"\#(created)","repository":{"id":3203,"full_name":"acme/widgets","default_branch":"main"}}"#
                    .utf8)
            let delivered = try await HTTPClient().send(
                HTTPRequest(
                    url: "http://127.0.0.1:\(port)/webhook", method: "POST",
                    headers: [
                        ("Content-Type", "application/json"), ("X-GitHub-Event", "push"), ("X-GitHub-Delivery", UUID().uuidString),
                        ("X-Hub-Signature-256", WebhookSecret(WebhookRig.secret, source: "test").signature(of: body)),
                    ], body: body))
            #expect((200..<300).contains(delivered.status))
            #expect(
                await waitUntil(timeout: .seconds(30)) { storedHeads()["release/2.0"] == created },
                "the push lists the branches now, not in an hour: \(daemon.log)")
        }
    }

    /// A hook subscribed to GitHub's `create` and `delete` events only (no push), delivered
    /// by github-sim itself: a branch created is mirrored and a branch deleted is marked gone
    /// (its commits kept) at once, long before the hourly round would list them.
    @Test func createAndDeleteEventsListTheBranchesAtOnce() async throws {
        let simulator = try await startSimulator([("widgets", 3204, 60, 17)])
        try await withRunning(simulator) { simulator in
            let (daemon, port) = try await startListeningForWebhooks(simulator)
            defer { daemon.stop() }
            simulator.setWebhook(
                SimWebhook(url: "http://127.0.0.1:\(port)/webhook", secret: WebhookRig.secret, events: ["create", "delete"]))

            let created = try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/2.0", back: 3)
            #expect(
                await waitUntil(timeout: .seconds(30)) { storedHeads()["release/2.0"] == created },
                "the create event lists the branches now, not in an hour: \(daemon.log)")
            let stored = try storedCommits()
            try simulator.deleteBranch(owner: "acme", name: "widgets", branch: "release/1.0")
            #expect(
                await waitUntil(timeout: .seconds(30)) { branchState("release/1.0") == "gone" },
                "the delete event lists the branches now: \(daemon.log)")
            #expect(try storedCommits() == stored, "a deleted branch's commits are kept")
            // The simulator records a delivery once its answer is in, which may be after the daemon acted on it.
            #expect(await waitUntil { simulator.webhookDeliveries().count == 2 })
            let deliveries = simulator.webhookDeliveries()
            #expect(deliveries.map(\.event).sorted() == ["create", "delete"])
            #expect(deliveries.allSatisfy { $0.status == 202 }, "\(deliveries)")
        }
    }
}
