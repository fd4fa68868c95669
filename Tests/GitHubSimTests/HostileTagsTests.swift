import Curl
import Foundation
import MirrorTestSupport
import Testing

@testable import GitHubSim

/// `FaultPlan.hostileTags` over libcurl and the real git client: tags of a tree and of a blob, a
/// chain and a cycle of tag objects, a name git refuses, and 100,000 tags, in git's ref listing and
/// in every REST tag endpoint; none of it touches the repository's own tags.
@Suite struct HostileTagsTests {
    static func hostile(_ simulator: GitHubSimulator, _ names: [HostileTag]) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["hostileTags": names.map(\.rawValue)])
        let set = try await HTTPClient().send(HTTPRequest(url: simulator.baseURL + "/_sim/faults", method: "POST", body: Array(body)))
        #expect(set.status == 200, "\(String(decoding: set.body, as: UTF8.self))")
    }

    static func object(_ client: HTTPClient, _ api: String, _ path: String) async throws -> [String: Any] {
        let response = try await TagsRESTTests.get(client, api + path)
        #expect(response.status == 200, "\(path)")
        return try #require(try TagsRESTTests.json(response) as? [String: Any])
    }

    @Test func treeBlobChainCycleAndBadNameTagsAreServedAsAHostileServerWould() async throws {
        let simulator = try await GitServingTests.started([TagsOverGitTests.taggedSynthetic()])
        try await withRunning(simulator) { simulator async throws in
            let client = try HTTPClient()
            let api = simulator.baseURL + "/repos/acme/widgets"
            let git = GitClient(scratch: try TemporaryDirectory())
            let url = simulator.baseURL + "/acme/widgets.git"
            let honest = try await TagsOverGitTests.lsRemote(git, url)
            try await Self.hostile(simulator, [.tree, .blob, .chain, .cycle, .dotDotName])
            let refs = try await TagsOverGitTests.lsRemote(git, url)
            #expect(refs.filter { !$0.key.contains("hostile") } == honest)
            let head = try #require(honest["HEAD"])

            let tree = try await Self.object(client, api, "/git/tags/\(try #require(refs["refs/tags/hostile-tree"]))")
            #expect((tree["object"] as? [String: Any])?["type"] as? String == "tree")
            #expect(refs["refs/tags/hostile-tree^{}"] == (tree["object"] as? [String: Any])?["sha"] as? String)
            let blob = try await Self.object(client, api, "/git/refs/tags/hostile-blob")
            #expect((blob["object"] as? [String: Any])?["type"] as? String == "blob" && refs["refs/tags/hostile-blob^{}"] == nil)

            let outer = try await Self.object(client, api, "/git/tags/\(try #require(refs["refs/tags/hostile-chain"]))")
            let innerSHA = try #require((outer["object"] as? [String: Any])?["sha"] as? String)
            #expect((outer["object"] as? [String: Any])?["type"] as? String == "tag")
            let inner = try await Self.object(client, api, "/git/tags/\(innerSHA)")
            #expect((inner["object"] as? [String: Any])?["sha"] as? String == head && refs["refs/tags/hostile-chain^{}"] == head)

            let first = try #require(refs["refs/tags/hostile-cycle"])
            let one = try await Self.object(client, api, "/git/tags/\(first)")
            let second = try #require((one["object"] as? [String: Any])?["sha"] as? String)
            let two = try await Self.object(client, api, "/git/tags/\(second)")
            #expect((two["object"] as? [String: Any])?["sha"] as? String == first && refs["refs/tags/hostile-cycle^{}"] == nil)

            #expect(refs["refs/tags/hostile..name"] == head)
            let (tags, _) = try await TagsRESTTests.all(client, api + "/tags?per_page=100")
            #expect(tags.contains { $0["name"] as? String == "hostile..name" } && tags.count == honest.count - 7 - 2 + 5)
        }
    }

    @Test func aHundredThousandTagsArePagedAndListed() async throws {
        let simulator = try await GitServingTests.started([TagsOverGitTests.taggedSynthetic()])
        try await withRunning(simulator) { simulator async throws in
            try await Self.hostile(simulator, [.hundredThousand])
            let client = try HTTPClient()
            let api = simulator.baseURL + "/repos/acme/widgets"
            let first = try await TagsRESTTests.get(client, api + "/tags?per_page=100")
            // 28 tags of its own, then 100,000 more: 1,001 pages.
            #expect(first.headers["link"]?.contains("page=1001>; rel=\"last\"") == true)
            let deep = try #require(
                try TagsRESTTests.json(try await TagsRESTTests.get(client, api + "/tags?per_page=100&page=1000")) as? [[String: Any]])
            #expect(deep.count == 100 && deep.first?["name"] as? String == "bulk/099872")
            let matching = try #require(
                try TagsRESTTests.json(try await TagsRESTTests.get(client, api + "/git/matching-refs/tags/bulk/09999")) as? [Any])
            #expect(matching.count == 10)

            let git = GitClient(scratch: try TemporaryDirectory())
            let refs = try await TagsOverGitTests.lsRemote(git, simulator.baseURL + "/acme/widgets.git")
            #expect(refs.keys.filter { $0.hasPrefix("refs/tags/bulk/") }.count == 100_000)
        }
    }
}
