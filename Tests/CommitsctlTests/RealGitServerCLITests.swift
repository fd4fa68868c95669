import Foundation
import MirrorTestSupport
import Testing

/// github-sim answering REST and naming real git (`git http-backend`) as `clone_url`
/// (`--clone-url`): the first sync reads the trees of Alamofire's history from git's own server,
/// stores what git holds, and never sends the API's token to that other origin.
@Suite(.enabled(if: PackagePaths.hasAlamofire, "needs ../shared/datasets/alamofire.bundle"))
struct RealGitServerCLITests {
    @Test func aFirstSyncReadsItsHistoryFromRealGitAndSendsItNoToken() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.path("served")
        let repository = root + "/Alamofire/Alamofire.git"
        func git(_ arguments: [String]) async throws -> String {
            let result = try await runProgram("/usr/bin/git", ["-C", repository] + arguments)
            #expect(result.status == 0, "git \(arguments): \(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        _ = try await runProgram("/usr/bin/git", ["clone", "--quiet", "--bare", PackagePaths.alamofireBundle, repository])
        let scratch = try TemporaryDirectory()
        let server = try await GitHTTPServer(root: root, scratch: scratch)
        defer { server.stop() }
        let token = "ghp_realgitservertoken"
        let sim = try await SimulatorProcess.start([
            "--git-repository", "Alamofire/Alamofire=\(repository)", "--clone-url", server.baseURL + "/",
        ])
        defer { sim.stop() }
        let db = directory.path("commits.sqlite")
        func commitsctl(_ arguments: [String]) async throws -> ProcessResult {
            try await run(
                "commitsctl", [arguments[0], "--db", db] + arguments.dropFirst(),
                environment: ["GITHUB_TOKEN": token, "GITHUB_API_URL": sim.baseURL])
        }

        let sync = try await commitsctl(["sync", "Alamofire/Alamofire", "--paths"])
        #expect(sync.status == 0, "\(sync.stderr)")
        // Too short a history for the git bootstrap: its rows come over REST, its paths over git.
        let count = try await git(["rev-list", "--count", "master"])
        #expect(sync.stdout.contains("\(count) new, 0 updated") && sync.stdout.contains("paths of \(count) commits read"), "\(sync.stdout)")
        let received = server.receivedAuthorizations()
        #expect(!received.isEmpty && received.allSatisfy { $0 == "-" }, "\(received)")

        let expected = try await git(["log", "--format=%H", "master", "--", "Source/Session.swift"])
        let listed = try await commitsctl(["query", "--format", "ndjson", "-n", "100000", "--", "Source/Session.swift"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let shas = Set(
            try listed.lines.map { line in
                try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["sha"] as? String ?? ""
            })
        #expect(shas == Set(expected.split(separator: "\n").map(String.init)), "\(listed.stdout.prefix(300))")
        #expect(!expected.isEmpty)
    }

    @Test func aCloneURLThatIsNoHTTPURLIsRefusedInOneLine() async throws {
        let result = try await run("github-sim", ["--clone-url", "ftp://127.0.0.1/"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--clone-url ftp://127.0.0.1/: expected an http or https URL"), "\(result.stderr)")
    }
}
