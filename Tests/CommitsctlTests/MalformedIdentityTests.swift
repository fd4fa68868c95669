import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// Issue #25 item 6: a commit whose git object has a malformed author line
/// (`author Name email 1420070400 +0530`, no `<…>`) while GitHub's REST listing
/// shows its real name, email and date. The real `commitsctl` never stores it as
/// `'' <''>` at 1970-01-01: it warns once, leaves git for REST, and the store
/// ends exactly what a REST-only sync stores.
@Suite struct MalformedIdentityTests {
    @Test func aMalformedAuthorLineIsLeftToRESTNeverStoredInvented() async throws {
        var spec = SyntheticSpec(commits: 2_500, seed: 61)
        spec.malformedAuthorLineAt = 1_200
        let simulator = try GitHubSimulator(repositories: [
            SimRepository.widgets(id: 501, spec)
        ])
        try await simulator.start()
        try await withRunning(simulator) { simulator in
            let directory = try TemporaryDirectory()
            func sync(_ store: String, _ extra: [String] = []) async throws -> ProcessResult {
                let result = try #require(
                    try await runBounded(
                        "commitsctl", ["sync", "acme/widgets", "--db", store, "--api-url", simulator.baseURL] + extra,
                        limit: .seconds(240), environment: ["GITHUB_TOKEN": "test-token"]),
                    "commitsctl sync did not end within 240 s")
                #expect(result.peakResident(), "peak resident \(result.peakResidentKiB ?? 0) KiB")
                return result
            }
            let overGit = directory.path("git.sqlite")
            // The warning is logged (the journal under commitsd); commitsctl shows it from --log-level warning.
            let result = try await sync(overGit, ["--log-level", "warning"])
            #expect(result.status == 0, "\(result.stderr)")
            let warnings = result.stderr.split(separator: "\n").filter { $0.contains("history not read over git") }
            #expect(warnings.count == 1, "\(result.stderr)")
            #expect(warnings.first?.contains("is malformed: its author line has no <email>") == true, "\(result.stderr)")
            #expect(result.stdout.contains("2500 new"), "\(result.stdout)")

            let restOnly = directory.path("rest.sqlite")
            #expect(try await sync(restOnly, ["--no-git-bootstrap"]).status == 0)
            let facts = try StoreInspection(overGit).mirroredFacts()
            #expect(facts.count == 2_500)
            #expect(facts == (try StoreInspection(restOnly).mirroredFacts()))
            #expect(!facts.contains { $0.contains("1970-01-01") || $0.contains(#","",""#) })
            let check = try await run("commitsctl", ["check", "--db", overGit])
            #expect(check.status == 0, "\(check.stdout)")
        }
    }
}
