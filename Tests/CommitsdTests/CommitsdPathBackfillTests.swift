import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// commitsd reads the changed paths a store lacks (`PathBackfills`): Alamofire's
/// real history, mirrored by a daemon with `paths: false`, gets every commit's
/// paths from the next daemon run with paths on, and `query -- PATH` then lists
/// what `git log -- PATH` lists.
@Suite(.enabled(if: PackagePaths.hasAlamofire, "needs ../shared/datasets/alamofire.bundle"))
struct CommitsdPathBackfillTests {
    @Test func aDaemonReadsThePathsOfAHistoryMirroredWithoutThem() async throws {
        let directory = try TemporaryDirectory()
        let repository = directory.path("alamofire.git")
        _ = try await runProgram("/usr/bin/git", ["clone", "--quiet", "--bare", PackagePaths.alamofireBundle, repository])
        let simulator = try GitHubSimulator(repositories: [
            SimRepository(owner: "Alamofire", name: "Alamofire", id: 7, source: .gitRepository(path: repository))
        ])
        try await simulator.start()
        try await withRunning(simulator) { simulator in try await Self.backfill(from: simulator, of: repository, in: directory) }
    }

    private static func backfill(from simulator: GitHubSimulator, of repository: String, in directory: TemporaryDirectory) async throws {
        let store = directory.path("state/commits.sqlite")
        func uncovered() async throws -> Int? {
            let status = try await run("commitsctl", ["status", "--db", store, "--format", "ndjson"])
            let line = status.stdout.split(separator: "\n").first.map(String.init) ?? "{}"
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard let commits = object?["commits"] as? Int, let covered = object?["repository_commits_with_paths"] as? Int else {
                return nil
            }
            return commits - covered
        }

        let withoutPaths = try DaemonProcess.mirroring(["Alamofire/Alamofire"], from: simulator, in: directory, settings: "paths: false")
        let mirrored = await waitUntil(timeout: .seconds(120)) {
            StoreInspection(store).memberSHAsSoFar(of: "Alamofire/Alamofire").count == 1678
        }
        #expect(mirrored, "\(withoutPaths.log.suffix(3000))")
        withoutPaths.signal(SIGTERM)
        #expect(await withoutPaths.waitForExit(timeout: .seconds(15)) == 0)
        #expect(try await uncovered() == 1678)

        let daemon = try DaemonProcess.mirroring(["Alamofire/Alamofire"], from: simulator, in: directory)
        defer { daemon.stop() }
        let read = await waitUntil(timeout: .seconds(120)) { daemon.log.contains("paths read over git") }
        #expect(read, "\(daemon.log.suffix(3000))")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(15)) == 0)
        #expect(try await uncovered() == 0)
        #expect(daemon.log.components(separatedBy: "paths read over git").count == 2, "read once, however many polls ran")

        let expected = try await runProgram(
            "/usr/bin/git", ["-C", repository, "log", "--format=%H", "master", "--", "Source/Session.swift"])
        let listed = try await run(
            "commitsctl", ["query", "--db", store, "--format", "ndjson", "-n", "100000", "--", "Source/Session.swift"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let shas = try listed.lines.map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["sha"] as? String ?? ""
        }
        #expect(Set(shas) == Set(expected.stdout.split(separator: "\n").map(String.init)))
        #expect(!shas.isEmpty)
    }
}
