import Foundation
import MirrorTestSupport
import NIOCore
import Testing

@testable import GitHubSim
import NIOHTTP1

/// Branches beyond the default (issue #29): `GET /repos/{o}/{r}/branches` as GitHub pages and
/// caches it, branch heads steered through `/_sim`, and every branch resolvable as a ref, listed by
/// `ls-refs` and fetchable by real git.
@Suite struct BranchesTests {
    static let token = "ghp_branchestoken"
    let client: CoreClient
    let history: SyntheticRepository

    init() throws {
        client = try CoreClient(repositories: [synthetic(40), SimRepository(owner: "acme", name: "void", id: 43, source: .empty)])
        history = SyntheticRepository(spec: SyntheticSpec(commits: 40, authors: 50, seed: 1))
    }

    /// The node `steps` first parents back from (positive) or toward the head (negative) `node`.
    private func walk(_ node: Int, _ steps: Int) -> Int {
        var node = node
        for _ in 0..<abs(steps) { node = (steps > 0 ? history.firstParent(of: node) : history.firstParentSuccessor(of: node)) ?? node }
        return node
    }

    private func branchNames(_ response: SimResponse) -> [String] { response.jsonArray.compactMap { $0["name"] as? String } }

    @Test func aRepositoryListsItsDefaultBranchWithItsHeadInGitHubsShape() throws {
        let response = client.get("/repos/acme/widgets/branches", token: "t")
        #expect(response.code == 200)
        let only = try #require(response.jsonArray.first)
        #expect(response.jsonArray.count == 1 && only["name"] as? String == "main")
        let commit = try #require(only["commit"] as? [String: Any])
        #expect(commit["sha"] as? String == history.sha(at: 39))
        #expect(commit["url"] as? String == "http://sim.test/repos/acme/widgets/commits/\(history.sha(at: 39))")
        #expect(only["protected"] as? Bool == false)
        #expect(client.get("/repos/acme/void/branches", token: "t").text == "[]", "an empty repository has no branches")
        #expect(client.get("/repos/acme/nothing/branches", token: "t").code == 404)
    }

    @Test func branchesAreCreatedMovedForcePushedBackAndDeletedThroughTheControlEndpoints() throws {
        #expect(client.get("/repos/acme/widgets/commits/release/1.0", token: "t").code == 422, "no such branch yet")
        let created = client.post("/_sim/repos/acme/widgets/branch?name=release/1.0&back=10")
        let releaseHead = walk(39, 10)
        #expect(created.code == 200 && created.jsonDictionary["head"] as? String == history.sha(at: releaseHead))
        #expect(client.post("/_sim/repos/acme/widgets/branch?name=feature&at=\(history.sha(at: walk(39, 30)))").code == 200)
        #expect(branchNames(client.get("/repos/acme/widgets/branches", token: "t")) == ["feature", "main", "release/1.0"])

        // The branch is a ref like the default one: its head probe, its listing, compare.
        let probe = client.get(
            "/repos/acme/widgets/commits/release/1.0", headers: [("Accept", "application/vnd.github.sha")], token: "t")
        #expect(probe.text == history.sha(at: releaseHead))
        let byName = client.get("/repos/acme/widgets/commits?sha=release/1.0&per_page=100", token: "t").shas
        #expect(byName.first == history.sha(at: releaseHead) && byName.count < 40)
        #expect(byName == client.get("/repos/acme/widgets/commits?sha=\(history.sha(at: releaseHead))&per_page=100", token: "t").shas)
        #expect(
            client.get("/repos/acme/widgets/commits?sha=refs/heads/feature&per_page=100", token: "t").shas.first
                == history.sha(at: walk(39, 30)))
        let compared = client.get("/repos/acme/widgets/compare/feature...release/1.0?per_page=1", token: "t")
        #expect(compared.jsonDictionary["status"] as? String == "ahead")

        let moved = client.post("/_sim/repos/acme/widgets/branch?name=release/1.0&forward=3")
        #expect(moved.jsonDictionary["head"] as? String == history.sha(at: walk(releaseHead, -3)))
        let forcedBack = client.post("/_sim/repos/acme/widgets/branch?name=release/1.0&back=7")
        #expect(forcedBack.jsonDictionary["head"] as? String == history.sha(at: walk(walk(releaseHead, -3), 7)))
        #expect(client.core.handle(SimRequest(method: .DELETE, uri: "/_sim/repos/acme/widgets/branch?name=feature")).code == 200)
        #expect(branchNames(client.get("/repos/acme/widgets/branches", token: "t")) == ["main", "release/1.0"])
        #expect(client.get("/repos/acme/widgets/commits/feature", token: "t").code == 422, "a deleted branch is no ref")

        // What cannot be done is refused in words, changing nothing.
        #expect(client.post("/_sim/repos/acme/widgets/branch?name=main&back=1").code == 422, "the default branch moves through /head")
        #expect(client.post("/_sim/repos/acme/widgets/branch?name=x&at=\(String(repeating: "1", count: 40))").code == 422)
        #expect(client.core.handle(SimRequest(method: .DELETE, uri: "/_sim/repos/acme/widgets/branch?name=gone")).code == 422)
        #expect(client.post("/_sim/repos/acme/widgets/branch?name=x").code == 400)
        #expect(client.post("/_sim/repos/acme/void/branch?name=x&back=0").code == 422, "an empty repository has no commit to point at")
        #expect(branchNames(client.get("/repos/acme/widgets/branches", token: "t")) == ["main", "release/1.0"])
    }

    @Test func pagesLinkThroughTheRepositoryIDAndEndWithAnEmptyPageAfterAFullOne() {
        for index in 0..<5 { _ = client.post("/_sim/repos/acme/widgets/branch?name=b\(index)&back=\(index)") }
        let first = client.get("/repos/acme/widgets/branches?per_page=3", token: "t")
        #expect(branchNames(first) == ["b0", "b1", "b2"])
        let link = first.header("Link") ?? ""
        #expect(link.contains("<http://sim.test/repositories/42/branches?per_page=3&page=2>; rel=\"next\""), "\(link)")
        #expect(branchNames(client.get("/repositories/42/branches?per_page=3&page=2", token: "t")) == ["b3", "b4", "main"])
        #expect(client.get("/repositories/42/branches?per_page=3&page=3", token: "t").text == "[]")
        #expect(client.get("/repos/acme/widgets/branches?per_page=100", token: "t").header("Link") == nil)
        #expect(client.get("/repos/acme/widgets/branches?protected=true", token: "t").text == "[]")
    }

    @Test func anUnchangedListingIsAnswered304ForFreeAndAnyBranchMoveChangesItsETag() throws {
        let first = client.get("/repos/acme/widgets/branches?per_page=100", token: "t")
        let etag = try #require(first.header("ETag"))
        #expect(etag.hasPrefix("W/\""))
        let used = client.core.stats().rateLimitUsed.values.reduce(0, +)
        let again = client.get("/repos/acme/widgets/branches?per_page=100", headers: [("If-None-Match", etag)], token: "t")
        #expect(again.code == 304 && again.body == nil)
        #expect(client.core.stats().rateLimitUsed.values.reduce(0, +) == used, "a 304 costs an authenticated client nothing")

        var etags: Set<String> = [etag]
        for step in [
            "/_sim/repos/acme/widgets/branch?name=topic&back=4", "/_sim/repos/acme/widgets/branch?name=topic&forward=1",
            "/_sim/repos/acme/widgets/head?back=2",
        ] {
            #expect(client.post(step).code == 200)
            let changed = client.get("/repos/acme/widgets/branches?per_page=100", headers: [("If-None-Match", etag)], token: "t")
            #expect(changed.code == 200, "\(step)")
            etags.insert(changed.header("ETag") ?? "")
        }
        #expect(etags.count == 4, "each change is a new ETag")
    }

    @Test func oneBranchIsAnsweredByNameSlashesAndAllOr404BranchNotFound() throws {
        let releaseHead = client.post("/_sim/repos/acme/widgets/branch?name=release/1.0&back=10").jsonDictionary["head"] as? String
        let one = client.get("/repos/acme/widgets/branches/release/1.0", token: "t")
        #expect(one.code == 200)
        #expect(one.jsonDictionary["name"] as? String == "release/1.0" && one.jsonDictionary["protected"] as? Bool == false)
        let commit = try #require(one.jsonDictionary["commit"] as? [String: Any])
        #expect(commit["sha"] as? String == releaseHead && releaseHead == history.sha(at: walk(39, 10)))
        #expect(commit["url"] as? String == "http://sim.test/repos/acme/widgets/commits/\(releaseHead ?? "")")
        #expect(client.get("/repositories/42/branches/release%2F1.0", token: "t").jsonDictionary["name"] as? String == "release/1.0")
        #expect(client.get("/repos/acme/widgets/branches/main", token: "t").jsonDictionary["name"] as? String == "main")

        let etag = try #require(one.header("ETag"))
        #expect(client.get("/repos/acme/widgets/branches/release/1.0", headers: [("If-None-Match", etag)], token: "t").code == 304)
        _ = client.post("/_sim/repos/acme/widgets/branch?name=release/1.0&forward=1")
        #expect(client.get("/repos/acme/widgets/branches/release/1.0", headers: [("If-None-Match", etag)], token: "t").code == 200)

        for missing in [
            "/repos/acme/widgets/branches/release", "/repos/acme/widgets/branches/release/1.0/x", "/repos/acme/void/branches/main",
        ] {
            let answer = client.get(missing, token: "t")
            #expect(answer.code == 404 && answer.jsonDictionary["message"] as? String == "Branch not found", "\(missing)")
        }
        #expect(client.get("/repos/acme/nothing/branches/main", token: "t").jsonDictionary["message"] as? String == "Not Found")
    }

    @Test func aBranchListingOmitsWhatTheFaultPlanNamesWhileTheBranchIsStillServed() {
        for name in ["a", "b", "c"] { _ = client.post("/_sim/repos/acme/widgets/branch?name=\(name)&back=1") }
        #expect(client.post("/_sim/faults", body: #"{"branchListingOmits":["b"]}"#).code == 200)
        #expect(branchNames(client.get("/repos/acme/widgets/branches?per_page=2", token: "t")) == ["a", "c"], "pages shift without it")
        #expect(branchNames(client.get("/repositories/42/branches?per_page=2&page=2", token: "t")) == ["main"])
        #expect(client.get("/repos/acme/widgets/branches/b", token: "t").code == 200)
        #expect(client.post("/_sim/faults", body: #"{"branchListingOmits":"b"}"#).code == 400)
        #expect(client.post("/_sim/faults", body: "").code == 200)
        #expect(branchNames(client.get("/repos/acme/widgets/branches", token: "t")) == ["a", "b", "c", "main"])
    }

    @Test func realGitSeesEveryBranchAndFetchesAllTheirTipsInOnePack() async throws {
        var configuration = SimConfiguration()
        configuration.validTokens = [Self.token]
        let simulator = try GitHubSimulator(configuration: configuration, repositories: [synthetic(60)])
        try simulator.setBranch(owner: "acme", name: "widgets", branch: "release/2.0", to: history60(40))
        try simulator.moveBranch(owner: "acme", name: "widgets", branch: "old", back: 50)
        try simulator.moveHead(owner: "acme", name: "widgets", back: 5)
        try await simulator.start()
        try await withRunning(simulator) { simulator async throws in
            let scratch = try TemporaryDirectory()
            let git = GitClient(scratch: scratch)
            let remote = simulator.baseURL + "/acme/widgets.git"
            let listed = try await git.run(["-c", "protocol.version=2", "ls-remote", remote])
            #expect(listed.status == 0, "\(listed.stderr)")
            let heads = try simulator.branchHeads(owner: "acme", name: "widgets")
            #expect(heads.count == 3)
            #expect(
                listed.lines == ["\(heads["main"]!)\tHEAD"] + heads.keys.sorted().map { "\(heads[$0]!)\trefs/heads/\($0)" })

            let clone = scratch.path("widgets.git")
            simulator.resetStats()
            // A bare clone fetches every branch: one fetch request wanting every tip.
            let cloned = try await git.run(["clone", "--quiet", "--bare", "--filter=tree:0", remote, clone])
            #expect(cloned.status == 0, "\(cloned.stderr)")
            #expect(simulator.stats().gitRequests == 3, "advertisement, ls-refs and one fetch for every tip")
            for (branch, head) in heads {
                let revList = try await git.run(["rev-list", "refs/heads/\(branch)"], in: clone)
                #expect(Set(revList.lines) == (try simulator.reachableSHAs(owner: "acme", name: "widgets", branch: branch)), "\(branch)")
                #expect(revList.lines.first == head)
            }
        }
    }

    private func history60(_ index: Int) -> String {
        SyntheticRepository(spec: SyntheticSpec(commits: 60, authors: 50, seed: 1)).sha(at: index)
    }
}
