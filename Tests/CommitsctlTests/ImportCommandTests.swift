import MirrorTestSupport
import Foundation
import GitHubSim
import MirrorCore
import Testing

/// `commitsctl import`: seeding from saved pages (issue #4 acceptance 6).
@Suite struct ImportCommandTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    func syncedStore(_ simulator: GitHubSimulator, _ repository: String, name: String = "synced.sqlite") async throws -> String {
        let store = directory.path(name)
        let result = try await run(
            "commitsctl", ["sync", repository, "--db", store, "--api-url", simulator.baseURL],
            environment: ["GITHUB_TOKEN": "t"])
        #expect(result.status == 0, "\(result.stderr)")
        return store
    }

    @Test func importOfSavedPagesEqualsASyncOfTheSameCommits() async throws {
        try await withRunning(startSimulator([("widgets", 1234)])) { simulator in
            let pages = try await savedPages(simulator, repository: "acme/widgets")
            #expect(pages.count == 13)
            // gh api --paginate writes the arrays back to back.
            let saved = directory.path("pages.json")
            try Data(pages.joined()).write(to: URL(fileURLWithPath: saved))

            let imported = directory.path("imported.sqlite")
            let result = try await run("commitsctl", ["import", "acme/widgets", saved, "--db", imported])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout
                    == "acme/widgets: imported 1234 commits (1234 new, 0 updated) from 1 input; every parent is present. Run `commitsctl sync acme/widgets` to verify the head and mark the history complete\n"
            )
            #expect(result.stderr.contains("commitsctl: import: \(saved): 1234 commits\n"))
            #expect(result.stderr.contains("commitsctl: import: stored 1234 of 1234 commits\n"))

            let synced = try await syncedStore(simulator, "acme/widgets")
            let expected = try StoreInspection(synced).commitFacts(of: "acme/widgets")
            #expect(expected.count == 1234)
            #expect(try StoreInspection(imported).commitFacts(of: "acme/widgets") == expected)

            // Nothing is marked complete by the import; the next sync proves it cheaply.
            let before = try await run("commitsctl", ["status", "--db", imported, "--json"])
            let beforeRow = try #require(
                (try JSONSerialization.jsonObject(with: Data(before.stdout.utf8)) as? [[String: Any]])?.first)
            #expect(beforeRow["complete"] as? Bool == false && beforeRow["last_success_at"] is NSNull, "\(before.stdout)")
            simulator.resetStats()
            let verify = try await run(
                "commitsctl", ["sync", "acme/widgets", "--db", imported, "--api-url", simulator.baseURL],
                environment: ["GITHUB_TOKEN": "t"])
            #expect(verify.status == 0)
            // Repository, head probe, first page, the tags; the engine may also prefetch page 2
            // (it assumes a never-completed history walks to the roots), which it then drops.
            #expect(
                verify.stdout.hasPrefix("acme/widgets@main: 0 new, 0 updated, 4 requests")
                    || verify.stdout.hasPrefix("acme/widgets@main: 0 new, 0 updated, 5 requests"), "\(verify.stdout)")
            #expect(simulator.stats().requests <= 5)
            let after = try await run("commitsctl", ["status", "--db", imported, "--json"])
            let afterRow = try #require(
                (try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [[String: Any]])?.first)
            #expect(afterRow["complete"] as? Bool == true, "\(after.stdout)")
            #expect(try StoreInspection(imported).commitFacts(of: "acme/widgets") == expected)
        }
    }

    @Test func ndjsonFromStandardInputToo() async throws {
        try await withRunning(startSimulator([("widgets", 321)])) { simulator in
            var ndjson = Data()
            for page in try await savedPages(simulator, repository: "acme/widgets") {
                for element in try JSONSerialization.jsonObject(with: Data(page)) as! [Any] {
                    ndjson += try JSONSerialization.data(withJSONObject: element) + Data("\n".utf8)
                }
            }
            let imported = directory.path("imported.sqlite")
            let result = try await run("commitsctl", ["import", "acme/widgets", "-", "--db", imported], stdin: ndjson)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("acme/widgets: imported 321 commits (321 new, 0 updated)"))
            #expect(result.stderr.hasPrefix("commitsctl: import: standard input: 321 commits\n"))
            let synced = try await syncedStore(simulator, "acme/widgets")
            #expect(
                try StoreInspection(imported).commitFacts(of: "acme/widgets") == StoreInspection(synced).commitFacts(of: "acme/widgets"))
        }
    }

    /// A partial save (an interrupted `gh api --paginate`) cannot prove its
    /// history whole: nothing is attached, and a sync then mirrors exactly.
    @Test func partialPagesAreNotAttachedAndTheNextSyncIsExact() async throws {
        try await withRunning(startSimulator([("widgets", 800)])) { simulator in
            let saved = directory.path("first-pages.json")
            try Data(try await savedPages(simulator, repository: "acme/widgets", pages: 3).joined()).write(to: URL(fileURLWithPath: saved))
            let imported = directory.path("imported.sqlite")
            let result = try await run("commitsctl", ["import", "acme/widgets", saved, "--db", imported])
            #expect(result.status == 0)
            #expect(
                result.stdout.contains("imported 0 commits (0 new, 0 updated) from 1 input; left out 300 commits whose history reaches"))
            #expect(StoreInspection(imported).memberSHAsSoFar(of: "acme/widgets").isEmpty)

            let sync = try await run(
                "commitsctl", ["sync", "acme/widgets", "--db", imported, "--api-url", simulator.baseURL],
                environment: ["GITHUB_TOKEN": "t"])
            #expect(sync.status == 0)
            #expect(
                StoreInspection(imported).memberSHAsSoFar(of: "acme/widgets")
                    == (try simulator.reachableSHAs(owner: "acme", name: "widgets")))
            let synced = try await syncedStore(simulator, "acme/widgets")
            #expect(
                try StoreInspection(imported).commitFacts(of: "acme/widgets") == StoreInspection(synced).commitFacts(of: "acme/widgets"))
        }
    }

    @Test func badInput() async throws {
        let store = directory.path("x.sqlite")
        let error = try await run(
            "commitsctl", ["import", "acme/widgets", "-", "--db", store],
            stdin: Data(#"{"message":"Not Found","documentation_url":"https://docs.github.com"}"#.utf8))
        #expect(error.status == 1)
        #expect(error.stderr == "commitsctl: error: standard input:1: this is a GitHub error response, not commits: Not Found\n")
        let missing = try await run("commitsctl", ["import", "acme/widgets", directory.path("nope.json"), "--db", store])
        #expect(missing.status == 1)
        #expect(missing.stderr == "commitsctl: error: cannot read \(directory.path("nope.json")): No such file or directory\n")
        let empty = try await run("commitsctl", ["import", "acme/widgets", "-", "--db", store], stdin: Data("[]\n".utf8))
        #expect(empty.status == 1)
        #expect(
            empty.stderr.hasSuffix(
                "commitsctl: error: no commits in -; expected `gh api --paginate repos/OWNER/REPO/commits` output or NDJSON commits\n"))
        let name = try await run("commitsctl", ["import", "widgets", "-"])
        #expect(name.status == 64)
        #expect(!FileManager.default.fileExists(atPath: store), "nothing is created for bad input")
    }
}
