import MirrorTestSupport
import Foundation
import Testing
@testable import GitHubSim

@Suite(.enabled(if: SharedFiles.hasDataset, "../shared not present"))
struct DatasetTests {
    let commits = SharedFiles.datasetCommits

    static func simulator() throws -> GitHubSimulator {
        try GitHubSimulator(repositories: [
            SimRepository(owner: "swiftlang", name: "swift-evolution", id: 7, source: .dataset(path: SharedFiles.datasetPath))
        ])
    }

    @Test func loadsEveryCommitInFileOrder() throws {
        #expect(commits.count == 7_807)
        #expect(commits.filter { $0.parents.count > 1 }.count == 1_344)
        #expect(commits.first?.sha == "0105e139a22938561c700cfbb89ddc3ebe402f0c")
        // 505 by bytes; Swift's String equality merges the NFC and NFD spellings of one name.
        #expect(Set(commits.map { Array($0.author.name.utf8) }).count == 505)
        #expect(Set(commits.map(\.author.name)).count == 504)
        #expect(commits.filter { $0.author.name == "Joe Groff" }.count == 324)
        #expect(commits.filter { $0.message.lowercased().contains("fix") }.count == 1_201)
    }

    @Test func reachableSetAndListingFollowTheGraph() throws {
        let simulator = try Self.simulator()
        let all = try simulator.reachableSHAs(owner: "swiftlang", name: "swift-evolution")
        #expect(all.count == Self.walk(commits, from: commits[0].sha).count)
        #expect(try simulator.headSHA(owner: "swiftlang", name: "swift-evolution") == commits[0].sha)
    }

    @Test func headMovesAlongFirstParentsAndBack() throws {
        let simulator = try Self.simulator()
        var chain = [commits[0].sha]
        let bySHA = Dictionary(uniqueKeysWithValues: commits.map { ($0.sha, $0) })
        while let parent = bySHA[chain.last!]?.parents.first, bySHA[parent] != nil, chain.count < 400 { chain.append(parent) }

        try simulator.moveHead(owner: "swiftlang", name: "swift-evolution", back: 300)
        #expect(try simulator.headSHA(owner: "swiftlang", name: "swift-evolution") == chain[300])
        let reachable = try simulator.reachableSHAs(owner: "swiftlang", name: "swift-evolution")
        #expect(reachable == Self.walk(commits, from: chain[300]))
        #expect(!reachable.contains(chain[299]))

        try simulator.moveHead(owner: "swiftlang", name: "swift-evolution", forward: 100)
        #expect(try simulator.headSHA(owner: "swiftlang", name: "swift-evolution") == chain[200])
        try simulator.moveHead(owner: "swiftlang", name: "swift-evolution", forward: 10_000)
        #expect(try simulator.headSHA(owner: "swiftlang", name: "swift-evolution") == chain[0])
    }

    @Test func servedPagesAreTheFileOrderRestrictedToReachableCommits() throws {
        let simulator = try Self.simulator()
        try simulator.moveHead(owner: "swiftlang", name: "swift-evolution", back: 50)
        simulator.core.baseURL = "http://sim.test"
        let client = CoreClient(core: simulator.core)
        let reachable = try simulator.reachableSHAs(owner: "swiftlang", name: "swift-evolution")
        let expected = commits.map(\.sha).filter(reachable.contains)
        var served = [String]()
        var page = 1
        while true {
            let response = client.get("/repositories/7/commits?per_page=100&page=\(page)", token: "t")
            #expect(response.code == 200)
            if response.shas.isEmpty { break }
            served += response.shas
            page += 1
        }
        #expect(served == expected)

        let first = client.get("/repositories/7/commits?per_page=1", token: "t").jsonArray[0]
        let commit = try #require(first["commit"] as? [String: Any])
        let source = try #require(commits.first { $0.sha == expected[0] })
        #expect(commit["message"] as? String == source.message.replacingOccurrences(of: "\n+$", with: "", options: .regularExpression))
        let date = try #require((commit["committer"] as? [String: String])?["date"])
        #expect(Timestamp.parseISO8601(date) == Timestamp.parseISO8601(source.committer.date))
        #expect(date.hasSuffix("Z"))
    }

    @Test func unreadableOrMalformedFilesNameTheFile() throws {
        #expect {
            try Dataset.load(path: "/nonexistent/x.jsonl.gz")
        } throws: { error in
            "\(error)".contains("/nonexistent/x.jsonl.gz")
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).jsonl").path
        try "{\"sha\":\"x\"}\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            try GitHubSimulator(repositories: [SimRepository(owner: "a", name: "b", id: 1, source: .dataset(path: path))])
        } throws: { error in
            "\(error)".contains(path + ":1")
        }
    }

    static func walk(_ commits: [DatasetCommit], from sha: String) -> Set<String> {
        let bySHA = Dictionary(uniqueKeysWithValues: commits.map { ($0.sha, $0) })
        var seen: Set<String> = [sha]
        var stack = [sha]
        while let next = stack.popLast() {
            for parent in bySHA[next]?.parents ?? [] where bySHA[parent] != nil && seen.insert(parent).inserted {
                stack.append(parent)
            }
        }
        return seen
    }
}

@Suite struct PlainDatasetTests {
    @Test func readsPlainJSONLinesWithATrailingNewlineAndOffsets() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tiny-\(UUID()).jsonl").path
        let lines = [
            #"{"sha":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","parents":["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],"tree":"cccccccccccccccccccccccccccccccccccccccc","author":{"name":"Zoë","email":"zoe@example.com","date":"2020-01-02T03:04:05+02:00"},"committer":{"name":"Zoë","email":"zoe@example.com","date":"2020-01-02T03:04:05+02:00"},"message":"second\n\n"}"#,
            #"{"sha":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","parents":[],"tree":"cccccccccccccccccccccccccccccccccccccccc","author":{"name":"Zoë","email":"zoe@example.com","date":"2020-01-01T00:00:00Z"},"committer":{"name":"Zoë","email":"zoe@example.com","date":"2020-01-01T00:00:00Z"},"message":"first"}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try Dataset.load(path: path).map(\.message) == ["second\n\n", "first"])

        let client = try CoreClient(repositories: [SimRepository(owner: "o", name: "r", id: 1, source: .dataset(path: path))])
        let page = client.get("/repos/o/r/commits")
        #expect(page.shas == [String(repeating: "b", count: 40), String(repeating: "a", count: 40)])
        let commit = page.jsonArray[0]["commit"] as? [String: Any]
        #expect(commit?["message"] as? String == "second")
        #expect((commit?["committer"] as? [String: String])?["date"] == "2020-01-02T01:04:05Z")
        #expect(page.header("Last-Modified") == "Thu, 02 Jan 2020 01:04:05 GMT")
    }
}
