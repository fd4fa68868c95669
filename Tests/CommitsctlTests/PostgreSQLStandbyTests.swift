import Foundation
import GitHubSim
import MirrorTestSupport
import PostgreSQL
import Testing

/// Readers on a hot standby (issue #27, acceptance 4): a streaming replica of
/// the store answers every read exactly as the primary once it has replayed the
/// primary's writes, and a sync pointed at it stops with one line before it
/// asks GitHub anything.
@Suite struct PostgreSQLStandbyTests {
    @Test func aStandbyAnswersAsThePrimaryAndRefusesASync() async throws {
        let primary = try await PostgreSQLServer.start()
        let standby = try await primary.startStandby()
        let uri = try primary.createDatabase()
        let database = String(uri.split(separator: "/").last!)
        try await withRunning(startSimulator([("widgets", 700), ("gadgets", 300)])) { simulator in
            for repository in ["acme/widgets", "acme/gadgets"] {
                let sync = try await run(
                    "commitsctl", ["sync", repository, "--db", uri, "--api-url", simulator.baseURL],
                    environment: ["GITHUB_TOKEN": "test-token"])
                #expect(sync.status == 0, "\(sync.stderr)")
            }
            try await primary.waitUntilReplayed(by: standby, database: database)
            let stores = PostgreSQLReadParityTests.Stores(
                sqlite: uri, postgreSQL: standby.uri(database: database), server: primary, directory: try TemporaryDirectory())
            let newest = try #require(
                try await commitsctl(["query", "-n", "1", "--format", "json", "--db", uri]).stdout.data(using: .utf8))
            let commit = try #require((try JSONSerialization.jsonObject(with: newest) as? [[String: Any]])?.first)
            try await PostgreSQLReadParityTests.expectSameReads(
                stores, author: try #require(commit["author_name"] as? String),
                committer: try #require(commit["committer_name"] as? String), coAuthor: "e", repository: "acme/gadgets")

            let requestsBefore = simulator.stats().requests
            let refused = try await run(
                "commitsctl", ["sync", "acme/widgets", "--db", standby.uri(database: database), "--api-url", simulator.baseURL],
                environment: ["GITHUB_TOKEN": "test-token"])
            #expect(refused.status != 0)
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("read-only") && refused.stderr.contains("primary"), "\(refused.stderr)")
            #expect(simulator.stats().requests == requestsBefore, "a sync into a standby must not spend requests")
        }
    }
}
