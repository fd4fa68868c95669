import MirrorTestSupport
import Foundation
import Testing
import GitHubSim

/// libcurl is loaded on the first request only (Sources/CCurl): the query
/// commands start without mapping it and the forty-odd libraries it needs.
/// The dynamic loader's own trace (LD_DEBUG=libs) says what each run loaded.
@Suite struct LazyCurlTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    static func loadedCurl(_ result: ProcessResult) -> Bool {
        result.stderr.split(separator: "\n").contains { $0.contains("find library=libcurl.so.4") }
    }

    @Test func queriesNeverLoadLibcurlAndSyncsDo() async throws {
        let db = directory.path("commits.sqlite")
        try await withRunning(startSimulator([("widgets", 120)])) { simulator in
            let sync = try await run(
                "commitsctl", ["sync", "acme/widgets", "--db", db, "--api-url", simulator.baseURL],
                environment: ["GITHUB_TOKEN": "test-token", "LD_DEBUG": "libs"])
            #expect(sync.status == 0, "\(sync.stderr.suffix(2_000))")
            #expect(Self.loadedCurl(sync), "the trace names every library loaded, libcurl included")

            for arguments in [["query", "-n", "5"], ["show", "HEAD"], ["authors"], ["status"], ["stats"], ["check"]] {
                let result = try await run("commitsctl", arguments + ["--db", db], environment: ["LD_DEBUG": "libs"])
                #expect(!Self.loadedCurl(result), "commitsctl \(arguments.joined(separator: " ")) loaded libcurl")
            }
            let version = try await run("commitsctl", ["--version"], environment: ["LD_DEBUG": "libs"])
            #expect(version.status == 0 && !Self.loadedCurl(version))
        }
    }
}
