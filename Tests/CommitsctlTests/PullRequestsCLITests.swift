import Curl
import Foundation
import MirrorTestSupport
import Testing

/// Pull requests end to end: real commitsctl and github-sim processes over loopback, a
/// real SQLite file and a real PostgreSQL 15. Every merge method's pull request is
/// linked to its merge commit, and `query --pr N` lists what real git's
/// `git rev-list M^1..M` does on a clone of the same repository; edits, closes and
/// reopens on the server are updated in place; an unchanged listing is one free 304.
@Suite struct PullRequestsCLITests {
    typealias Mirror = TagsCLITests.Mirror

    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Every pull request the simulator lists for acme/widgets, over its REST API.
    static func listed(_ sim: SimulatorProcess) async throws -> [[String: Any]] {
        var all: [[String: Any]] = []
        for page in 1... {
            let response = try await HTTPClient().send(
                HTTPRequest(
                    url: sim.baseURL + "/repos/acme/widgets/pulls?state=all&sort=updated&direction=desc&per_page=100&page=\(page)",
                    headers: [("Authorization", "token test-token"), ("User-Agent", "commits-mirror-tests")]))
            let elements = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]] ?? []
            if elements.isEmpty { return all }
            all += elements
        }
        return all
    }

    /// The pull requests a token spent requests on, as `status --requests` records them.
    static func pullRequestTally(_ mirror: Mirror) async throws -> (requests: Int, notModified: Int) {
        let rows = try await mirror.run(["status", "--requests", "--format", "ndjson"]).stdout.split(separator: "\n")
            .map { TagsCLITests.object(String($0)) }.filter { $0["kind"] as? String == "pull_requests" }
        return (rows.compactMap { $0["requests"] as? Int }.reduce(0, +), rows.compactMap { $0["not_modified"] as? Int }.reduce(0, +))
    }

    @Test(arguments: TagsCLITests.Store.allCases)
    func everyMergeMethodIsLinkedAndQueryPRListsGitsRange(store: TagsCLITests.Store) async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=300:7"])
        defer { sim.stop() }
        let db = store == .sqlite ? directory.path("commits.sqlite") : try await PostgreSQLServer.shared().createDatabase()
        let mirror = Mirror(db: db, sim: sim)
        let synced = try await mirror.run(["sync", "acme/widgets", "--pull-requests"])
        let pulls = try await Self.listed(sim)
        #expect(pulls.count > 40 && synced.stdout.contains("pull requests: \(pulls.count) new, 0 updated"), "\(synced.stdout)")
        let git = try await TagsCLITests.clone(sim, into: directory.path("widgets-\(store.rawValue).git"))
        // Merge commits of each method: two parents (a merge), one (squash or rebase).
        var checked: [Int: Int] = [:]
        for pull in pulls {
            guard let number = pull["number"] as? Int, let merge = pull["merge_commit_sha"] as? String,
                let head = (pull["head"] as? [String: Any])?["sha"] as? String
            else { continue }
            let parents = try git.lines(["rev-list", "--parents", "-n", "1", merge])[0].split(separator: " ").count - 1
            guard checked[parents, default: 0] < 3 else { continue }
            checked[parents, default: 0] += 1
            let listed = try await mirror.run(["query", "--pr", String(number), "--format", "ndjson"]).stdout.split(separator: "\n")
                .compactMap { TagsCLITests.object(String($0))["sha"] as? String }
            #expect(Set(listed) == Set(try git.lines(["rev-list", "\(merge)^1..\(merge)"])), "#\(number)")
            let shown = try await mirror.run(["show", merge, "--format", "json"]).stdout
            let linked = (TagsCLITests.object(shown)["pull_requests"] as? [[String: Any]] ?? []).compactMap { $0["number"] as? Int }
            #expect(linked.contains(number), "show \(merge): \(shown)")
            if parents == 2 {
                let headShown = try await mirror.run(["show", head]).stdout
                #expect(headShown.contains("Pull request: acme/widgets#\(number) "), "head of #\(number)")
            }
        }
        #expect(checked[1] == 3 && checked[2] == 3, "squash or rebase, and merge, pull requests: \(checked)")
        let status = try await mirror.run(["status", "--format", "ndjson"]).stdout
        #expect(TagsCLITests.object(status.split(separator: "\n").map(String.init)[0])["repository_pull_requests"] as? Int == pulls.count)

        // Unchanged: idle polls ask for the tags and the pull requests in turn, one 304 each time.
        let before = try await Self.pullRequestTally(mirror)
        for _ in 0..<2 {
            let idle = try await mirror.run(["sync", "acme/widgets", "--pull-requests"])
            #expect(idle.stdout.contains("acme/widgets@main: 0 new, 0 updated, 2 requests (2 not modified),"), "\(idle.stdout)")
        }
        let after = try await Self.pullRequestTally(mirror)
        #expect(after.requests == before.requests + 1 && after.notModified == before.notModified + 1)

        try await expectEditsAreUpdatedInPlace(mirror, sim: sim, git: git)
    }

    /// A pull request opened, one retitled, then closed and reopened on the server: each sync
    /// records what changed, in place, and `query --pr` says an open one brought nothing.
    private func expectEditsAreUpdatedInPlace(_ mirror: Mirror, sim: SimulatorProcess, git: TagsCLITests.BareClone) async throws {
        let head = try git.lines(["rev-parse", "main~3"])[0]
        let opened = try await sim.control("/_sim/repos/acme/widgets/pulls?title=Fresh&head=\(head)", method: "POST")
        let number = try #require(opened["number"] as? Int)
        try await sim.control("/_sim/repos/acme/widgets/pulls/1?title=Retitled", method: "POST")
        let synced = try await Self.twoIdlePolls(mirror)
        #expect(synced.contains("pull requests: 1 new, 1 updated"), "\(synced)")
        let merge = try #require(try await Self.listed(sim).first { $0["number"] as? Int == 1 }?["merge_commit_sha"] as? String)
        let retitled = try await mirror.run(["show", merge]).stdout
        #expect(retitled.contains("Pull request: acme/widgets#1 Retitled (opened by"), "\(retitled)")
        let fresh = try await mirror.run(["show", head]).stdout
        #expect(fresh.contains("Pull request: acme/widgets#\(number) Fresh (opened by"), "\(fresh)")

        for action in ["close", "reopen"] {
            try await sim.control("/_sim/repos/acme/widgets/pulls/\(number)/\(action)", method: "POST")
            let again = try await Self.twoIdlePolls(mirror)
            #expect(again.contains("pull requests: 0 new, 1 updated"), "\(action): \(again)")
        }
        let open = try await MirrorTestSupport.run(
            "commitsctl", ["query", "--db", mirror.db, "--pr", String(number)])
        #expect(open.status != 0 && open.stderr == "commitsctl: error: acme/widgets#\(number) is open: it brought no commits\n")
        let unknown = try await MirrorTestSupport.run("commitsctl", ["query", "--db", mirror.db, "--pr", "99999"])
        #expect(
            unknown.status != 0
                && unknown.stderr == "commitsctl: error: no mirrored repository searched has a pull request #99999\n")
    }

    /// What two syncs without new commits print: between them, one asks for the pull requests.
    static func twoIdlePolls(_ mirror: Mirror) async throws -> String {
        let first = try await mirror.run(["sync", "acme/widgets", "--pull-requests"]).stdout
        return first + (try await mirror.run(["sync", "acme/widgets", "--pull-requests"]).stdout)
    }

    @Test func tenThousandPullRequestsAreMirroredInAHundredAndOneRequests() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=26700:3:realistic"])
        defer { sim.stop() }
        let mirror = Mirror(db: directory.path("commits.sqlite"), sim: sim)
        let synced = try await mirror.run(["sync", "acme/widgets", "--pull-requests"])
        let count = try await mirror.run(["status", "--format", "ndjson"]).stdout.split(separator: "\n").map(String.init)
            .compactMap { TagsCLITests.object($0)["repository_pull_requests"] as? Int }.first
        #expect((count ?? 0) >= 10_000, "\(synced.stdout)")
        let tally = try await Self.pullRequestTally(mirror)
        #expect(tally.requests <= 101 && tally.requests == ((count ?? 0) + 99) / 100, "\(tally)")
    }

    @Test func aLoopingListingRecordsNothingAndAForeignCommitLinksNothingAndIsReported() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=3000:5"])
        defer { sim.stop() }
        let mirror = Mirror(db: directory.path("commits.sqlite"), sim: sim)
        try await sim.control("/_sim/faults", method: "POST", body: #"{"hostilePulls": ["looping-pages"]}"#)
        let looped = try await mirror.run(["sync", "acme/widgets", "--pull-requests"])
        #expect(
            looped.stdout.contains(
                "pull requests not read (the pull request listing of acme/widgets loops back to a page it already gave; nothing of it was recorded)"
            ), "\(looped.stdout)")
        let status = try await mirror.run(["status", "--format", "ndjson"]).stdout
        #expect(TagsCLITests.object(status.split(separator: "\n").map(String.init)[0])["repository_pull_requests"] as? Int == 0)

        try await sim.control("/_sim/faults", method: "POST", body: #"{"hostilePulls": ["foreign-commit"]}"#)
        let foreign = try await mirror.run(["sync", "acme/widgets", "--pull-requests"])
        let newest = try #require(try await Self.listed(sim).first)
        let number = try #require(newest["number"] as? Int)
        #expect(
            foreign.stdout.contains(" updated (#\(number) merged as a commit the mirrored history does not hold, not linked), "),
            "\(foreign.stdout)")
        let query = try await MirrorTestSupport.run("commitsctl", ["query", "--db", mirror.db, "--pr", String(number)])
        #expect(query.status != 0 && query.stderr.contains("which the mirrored history does not hold"), "\(query.stderr)")
    }
}
