import Curl
import Foundation
import MirrorTestSupport
import Testing

@testable import GitHubSim

/// Pull requests over libcurl: derived from a real history's "Merge pull request #N from
/// owner/branch" merges and from a generated one's merges, squashes and rebases; paged by update
/// with `Link` and a free 304; changed at run time (each change listed first, and delivered as a
/// signed `pull_request` webhook); and the hostile listings.
@Suite struct PullsTests {
    static let listing = "/repos/acme/widgets/pulls?state=all&sort=updated&direction=desc&per_page=100"

    static func control(_ simulator: GitHubSimulator, _ path: String) async throws -> HTTPResponse {
        try await HTTPClient().send(HTTPRequest(url: simulator.baseURL + "/_sim/repos/acme/widgets/" + path, method: "POST", body: []))
    }

    @Test(.enabled(if: SharedFiles.hasDataset, "../shared not present"))
    func aRealHistorysMergesArePullRequestsPagedByUpdate() async throws {
        let simulator = try await GitServingTests.started([
            SimRepository(owner: "acme", name: "widgets", id: 7, source: .dataset(path: SharedFiles.datasetPath))
        ])
        try await withRunning(simulator) { simulator async throws in
            let client = try HTTPClient()
            let (pulls, pages) = try await TagsRESTTests.all(client, simulator.baseURL + Self.listing)
            // Every merge whose subject names a pull request, each number once (the newest merge).
            let pattern = /^Merge pull request #([0-9]+) from [^ \/]+\/[^ ]+/
            var numbers = Set<Int>()
            var merges: [String: DatasetCommit] = [:]
            for commit in SharedFiles.datasetCommits where commit.parents.count == 2 {
                guard let match = commit.message.prefixMatch(of: pattern), let number = Int(match.1) else { continue }
                if numbers.insert(number).inserted { merges[commit.sha] = commit }
            }
            #expect(merges.count > 1000 && pulls.count == merges.count)
            #expect(pages == merges.count / 100 + 1)
            let updated = pulls.compactMap { $0["updated_at"] as? String }
            #expect(updated.count == pulls.count && updated == updated.sorted(by: >))
            for pull in pulls {
                let sha = try #require(pull["merge_commit_sha"] as? String)
                let merge = try #require(merges[sha], "\(sha) is no pull request merge")
                #expect(merge.message.hasPrefix("Merge pull request #\(pull["number"] as? Int ?? 0) from "))
                #expect((pull["head"] as? [String: Any])?["sha"] as? String == merge.parents[1])
                #expect((pull["base"] as? [String: Any])?["sha"] as? String == merge.parents[0])
                #expect(pull["state"] as? String == "closed" && pull["merged_at"] as? String == pull["closed_at"] as? String)
            }

            let first = try await TagsRESTTests.get(client, simulator.baseURL + Self.listing)
            let etag = try #require(first.headers["etag"])
            let again = try await TagsRESTTests.get(client, simulator.baseURL + Self.listing, etag: etag)
            #expect(again.status == 304 && again.headers["x-ratelimit-remaining"] == first.headers["x-ratelimit-remaining"])
            let one = try TagsRESTTests.json(
                try await TagsRESTTests.get(client, simulator.baseURL + "/repos/acme/widgets/pulls/\(pulls[0]["number"] as? Int ?? 0)"))
            #expect((one as? [String: Any])?["merge_commit_sha"] as? String == pulls[0]["merge_commit_sha"] as? String)
            #expect(try await TagsRESTTests.get(client, simulator.baseURL + "/repos/acme/widgets/pulls/999999").status == 404)
        }
    }

    @Test func aGeneratedHistoryHasEveryMergeMethod() async throws {
        let spec = SyntheticSpec(commits: 400, mergeEvery: 8, seed: 3)
        let history = SyntheticRepository(spec: spec)
        let simulator = try await GitServingTests.started([SimRepository(owner: "acme", name: "widgets", id: 7, source: .synthetic(spec))])
        try await withRunning(simulator) { simulator async throws in
            let (pulls, _) = try await TagsRESTTests.all(try HTTPClient(), simulator.baseURL + Self.listing)
            // A pull request per merge, and a squash or a rebase after each odd-numbered one.
            #expect(pulls.count == 49 + 25)
            var singleParent = 0
            for pull in pulls {
                let mergeSHA = try #require(pull["merge_commit_sha"] as? String)
                let merge = try #require(history.index(ofSHA: mergeSHA))
                let head = try #require((pull["head"] as? [String: Any])?["sha"] as? String)
                if history.parentIndices(at: merge).count == 2 {
                    #expect(history.sha(at: history.parentIndices(at: merge)[1]) == head)
                    #expect(pull["number"] as? Int == merge / 8)
                } else {
                    // Squashed or rebased: a commit of the default branch, its head a tip never pushed here.
                    #expect(history.parentIndices(at: merge) == [merge - 1] && history.index(ofSHA: head) == nil)
                    singleParent += 1
                }
            }
            #expect(singleParent == 25)
        }
    }

    @Test func openedEditedClosedAndReopenedPullRequestsAreListedFirstAndDelivered() async throws {
        let (receiver, simulator) = try await WebhookDeliveryTests.deliveringSimulator()
        defer { receiver.stop() }
        defer { Task { try? await simulator.shutdown() } }
        let client = try HTTPClient()
        let head = try #require((try await GitServingTests.restListing(simulator)).first?["sha"] as? String)
        func newest() async throws -> [String: Any] {
            let page = try TagsRESTTests.json(try await TagsRESTTests.get(client, simulator.baseURL + Self.listing)) as? [[String: Any]]
            return try #require(page?.first)
        }
        let before = try await TagsRESTTests.get(client, simulator.baseURL + Self.listing)
        let opened = try await Self.control(simulator, "pulls?title=Add%20gears&head=\(head)")
        #expect(opened.status == 200)
        let number = try #require((try TagsRESTTests.json(opened) as? [String: Any])?["number"] as? Int)
        let added = try await newest()
        #expect(added["title"] as? String == "Add gears" && added["state"] as? String == "open" && added["number"] as? Int == number)

        #expect(try await Self.control(simulator, "branch?name=release&back=4").status == 200)
        let derived = 5  // a merge of the generated history, listed below the new one until it changes
        #expect(try await Self.control(simulator, "pulls/\(derived)?title=Renamed&base=release").status == 200)
        let renamed = try await newest()
        #expect(renamed["number"] as? Int == derived && renamed["title"] as? String == "Renamed")
        #expect((renamed["base"] as? [String: Any])?["ref"] as? String == "release")
        #expect(try await Self.control(simulator, "pulls/\(derived)/reopen").status == 422)  // merged

        var times: [String] = []
        for action in ["close", "reopen"] {
            #expect(try await Self.control(simulator, "pulls/\(number)/\(action)").status == 200)
            let pull = try await newest()
            #expect(pull["number"] as? Int == number && pull["state"] as? String == (action == "close" ? "closed" : "open"))
            times.append(try #require(pull["updated_at"] as? String))
        }
        #expect(times[0] < times[1])
        #expect(try await Self.control(simulator, "pulls/\(number)/reopen").status == 422)
        let etag = try #require(before.headers["etag"])
        #expect(try await TagsRESTTests.get(client, simulator.baseURL + Self.listing, etag: etag).status == 200)

        #expect(await waitUntil { simulator.webhookDeliveries().filter { $0.event == "pull_request" }.count == 4 })
        let delivered = receiver.requests.filter { $0.headers["x-github-event"] == "pull_request" }
        #expect(delivered.count == 4 && delivered.allSatisfy { $0.headers["x-hub-signature-256"]?.hasPrefix("sha256=") == true })
    }

    @Test func hostileListingsLoopAndNameAnotherRepositorysCommit() async throws {
        let spec = SyntheticSpec(commits: 4000, mergeEvery: 8, seed: 3)
        let simulator = try await GitServingTests.started([SimRepository(owner: "acme", name: "widgets", id: 7, source: .synthetic(spec))])
        try await withRunning(simulator) { simulator async throws in
            let set = try await HTTPClient().send(
                HTTPRequest(
                    url: simulator.baseURL + "/_sim/faults", method: "POST",
                    body: Array(#"{"hostilePulls":["looping-pages","foreign-commit"]}"#.utf8)))
            #expect(set.status == 200)
            let client = try HTTPClient()
            var url = simulator.baseURL + Self.listing
            var visited: [String] = []
            for _ in 0..<5 {
                let page = try await TagsRESTTests.get(client, url)
                visited.append(url.firstMatch(of: /[?&]page=([0-9]+)/).map { String($0.1) } ?? "1")
                url = try #require(TagsRESTTests.next(page))
            }
            #expect(visited.suffix(4) == ["2", "3", "2", "3"])
            let first = try TagsRESTTests.json(try await TagsRESTTests.get(client, simulator.baseURL + Self.listing)) as? [[String: Any]]
            let foreign = try #require(first?.first?["merge_commit_sha"] as? String)
            #expect(SyntheticRepository(spec: spec).index(ofSHA: foreign) == nil)
            #expect(SyntheticRepository(spec: SyntheticSpec(commits: 1, seed: 4242)).sha(at: 0) == foreign)
        }
    }
}
