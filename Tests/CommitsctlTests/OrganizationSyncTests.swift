import Foundation
import GitHubSim
import MirrorCore
import MirrorTestSupport
import Testing

/// `commitsctl sync 'acme/*'`: the real binary against github-sim's owner listings.
@Suite struct OrganizationSyncTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var store: String { directory.path("commits.sqlite") }

    /// 12 repositories under `acme` (small histories) and 3 under `umbrella`.
    func startOrganizations(configuration: SimConfiguration = .init()) async throws -> GitHubSimulator {
        var repositories = (1...12).map { index in
            SimRepository(
                owner: "acme", name: "tool-\(index)", id: 2000 + index,
                source: .synthetic(SyntheticSpec(commits: 5 + index * 3, seed: UInt64(index))))
        }
        repositories += (1...3).map { index in
            SimRepository(
                owner: "umbrella", name: "tool-\(index)", id: 3000 + index,
                source: .synthetic(SyntheticSpec(commits: 10, seed: UInt64(100 + index))))
        }
        let simulator = try GitHubSimulator(configuration: configuration, repositories: repositories)
        try await simulator.start()
        return simulator
    }

    func sync(_ arguments: [String], _ simulator: GitHubSimulator) async throws -> ProcessResult {
        try await run(
            "commitsctl", ["sync"] + arguments + ["--db", store, "--api-url", simulator.baseURL],
            environment: ["GITHUB_TOKEN": "test-token"])
    }

    @Test func mirrorsExactlyTheOwnersRepositoriesThenCostsOnly304s() async throws {
        try await withRunning(startOrganizations()) { simulator in
            let first = try await sync(["acme/*"], simulator)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.lines.first == "acme/*: 12 repositories (12 new), 1 request", "\(first.stdout)")
            #expect(first.lines.count == 13)
            let mirrored = StoreInspection(store).repositoryStates()
            #expect(Set(mirrored.keys) == Set((1...12).map { "acme/tool-\($0)" }), "\(mirrored)")
            for index in 1...12 {
                #expect(
                    StoreInspection(store).memberSHAsSoFar(of: "acme/tool-\(index)")
                        == (try simulator.reachableSHAs(owner: "acme", name: "tool-\(index)")))
            }

            // Unchanged: one conditional listing, then a head probe and a tag listing per repository, all 304, 0 points.
            simulator.resetStats()
            let second = try await sync(["acme/*"], simulator)
            #expect(second.status == 0, "\(second.stderr)")
            let stats = simulator.stats()
            #expect(stats.requests == 25, "the listing, then each repository's head and tags: \(stats)")
            #expect(stats.notModified == stats.requests, "\(stats)")
            #expect(stats.rateLimitUsed.values.reduce(0, +) == 0, "\(stats)")
            #expect(second.lines.first == "acme/*: 12 repositories, 1 request (1 not modified)", "\(second.stdout)")
            #expect(second.lines.dropFirst().allSatisfy { $0.contains(": 0 new, 0 updated, 2 requests (2 not modified)") })
        }
    }

    @Test func aRepositoryAddedAppearsAndOneDeletedIsGoneWithItsHistoryKept() async throws {
        try await withRunning(startOrganizations()) { simulator in
            #expect(try await sync(["acme/*"], simulator).status == 0)
            let kept = StoreInspection(store).memberSHAsSoFar(of: "acme/tool-3")
            #expect(kept.count == 14)

            try simulator.addRepository(
                SimRepository(
                    owner: "acme", name: "newcomer", id: simulator.unusedRepositoryID(),
                    source: .synthetic(SyntheticSpec(commits: 42, seed: 9))))
            try simulator.deleteRepository(owner: "acme", name: "tool-3")
            let next = try await sync(["acme/*"], simulator)
            #expect(next.status == 0, "\(next.stderr)")
            #expect(next.lines.first?.hasPrefix("acme/*: 12 repositories (1 new, 1 gone), ") == true, "\(next.stdout)")
            #expect(next.lines.contains { $0.hasPrefix("acme/newcomer@main: 42 new, ") }, "\(next.stdout)")
            #expect(!next.lines.contains { $0.hasPrefix("acme/tool-3@") })
            #expect(
                next.stderr
                    == "commitsctl: warning: acme/tool-3 is gone (left its owner's listing; GitHub answers 404 for it); its history is kept\n"
            )
            #expect(
                StoreInspection(store).memberSHAsSoFar(of: "acme/newcomer")
                    == (try simulator.reachableSHAs(owner: "acme", name: "newcomer")))
            #expect(StoreInspection(store).memberSHAsSoFar(of: "acme/tool-3") == kept)
            #expect(StoreInspection(store).repositoryStates()["acme/tool-3"] == "gone")
            #expect(!FileManager.default.fileExists(atPath: "\(store).locks/acme+tool-3.lock"))

            let status = try await run("commitsctl", ["status", "--db", store, "--json"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
            let gone = try #require(rows.first { $0["repository"] as? String == "acme/tool-3" })
            #expect(gone["state"] as? String == "gone" && gone["commits"] as? Int == 14)
            #expect(rows.filter { $0["state"] as? String == "active" }.count == 12)
            let table = try await run("commitsctl", ["status", "--db", store], environment: ["COLUMNS": "200"])
            #expect(table.lines.first?.contains("COMPLETE  STATE") == true, "\(table.stdout)")
            let goneLine = try #require(table.lines.first { $0.hasPrefix("acme/tool-3 ") })
            #expect(goneLine.contains(" gone ") && goneLine.hasSuffix("left its owner's listing; GitHub answers 404 for it"), "\(goneLine)")

            // It comes back when it reappears (same GitHub id).
            try simulator.addRepository(
                SimRepository(owner: "acme", name: "tool-3", id: 2003, source: .synthetic(SyntheticSpec(commits: 14, seed: 3))))
            let back = try await sync(["acme/*"], simulator)
            #expect(back.status == 0, "\(back.stderr)")
            #expect(back.lines.first?.hasPrefix("acme/*: 13 repositories (1 back), ") == true, "\(back.stdout)")
            #expect(StoreInspection(store).repositoryStates()["acme/tool-3"] == "active")
        }
    }

    @Test func anEmptyRepositoryIsMirroredAsEmptyNotAsAnError() async throws {
        try await withRunning(startOrganizations()) { simulator in
            try simulator.addRepository(SimRepository(owner: "acme", name: "void", id: 4003, source: .empty))
            let result = try await sync(["acme/*"], simulator)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.lines.first == "acme/*: 13 repositories (13 new), 1 request", "\(result.stdout)")
            #expect(result.lines.contains { $0.hasPrefix("acme/void@main: 0 new, 0 updated, ") && !$0.contains("not yet complete") })
            let listed = try await run("commitsctl", ["repos", "--db", store, "--format", "json"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            let void = try #require(rows.first { $0["repository"] as? String == "acme/void" })
            #expect(void["state"] as? String == "active" && void["commits"] as? Int == 0 && void["complete"] as? Bool == true)
            #expect(try await run("commitsctl", ["check", "--db", store]).status == 0)
        }
    }

    @Test func forksAndArchivedRepositoriesOnlyOnRequest() async throws {
        try await withRunning(startOrganizations()) { simulator in
            try simulator.addRepository(
                SimRepository(owner: "acme", name: "fork-of-x", id: 4001, source: .synthetic(SyntheticSpec(commits: 3)), fork: true))
            try simulator.addRepository(
                SimRepository(owner: "acme", name: "old", id: 4002, source: .synthetic(SyntheticSpec(commits: 3, seed: 77)), archived: true)
            )
            let plain = try await sync(["acme/*"], simulator)
            #expect(plain.lines.first?.hasPrefix("acme/*: 12 repositories") == true, "\(plain.stdout)")
            let forks = try await sync(["acme/*", "--include-forks"], simulator)
            #expect(forks.lines.first?.hasPrefix("acme/*: 13 repositories (1 new)") == true, "\(forks.stdout)")
            let all = try await sync(["acme/*", "--include-forks", "--include-archived"], simulator)
            #expect(all.lines.first?.hasPrefix("acme/*: 14 repositories (1 new)") == true, "\(all.stdout)")
            #expect(StoreInspection(store).repositoryStates().count == 14)
        }
    }

    @Test func aGlobSelectsByNameAndAUserAccountIsListedThroughUsers() async throws {
        var configuration = SimConfiguration()
        configuration.userAccounts = ["umbrella"]
        try await withRunning(startOrganizations(configuration: configuration)) { simulator in
            let glob = try await sync(["acme/tool-1*"], simulator)
            #expect(glob.status == 0, "\(glob.stderr)")
            // tool-1, tool-10, tool-11, tool-12
            #expect(glob.lines.first == "acme/tool-1*: 4 repositories (4 new), 1 request", "\(glob.stdout)")
            // /orgs/umbrella/repos answers 404: the listing falls back to /users/umbrella/repos.
            simulator.resetStats()
            let user = try await sync(["umbrella/*"], simulator)
            #expect(user.status == 0, "\(user.stderr)")
            #expect(user.lines.first == "umbrella/*: 3 repositories (3 new), 2 requests", "\(user.stdout)")
            let again = try await sync(["umbrella/*"], simulator)
            #expect(again.lines.first == "umbrella/*: 3 repositories, 1 request (1 not modified)", "\(again.stdout)")
        }
    }

    @Test func aConfigurationPatternIsExpandedBesideNamedRepositories() async throws {
        try await withRunning(startOrganizations()) { simulator in
            let config = try directory.write(
                "config.yaml",
                """
                store: commits.sqlite
                api_url: \(simulator.baseURL)
                repositories:
                  - umbrella/tool-2
                  - name: acme/tool-1*
                    interval: 5m
                """)
            let result = try await run("commitsctl", ["sync", "--config", config], environment: ["GITHUB_TOKEN": "test-token"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.lines.first == "acme/tool-1*: 4 repositories (4 new), 1 request", "\(result.stdout)")
            #expect(result.lines.count == 6)
            #expect(Set(StoreInspection(store).repositoryStates().keys).count == 5)
            let status = try await run("commitsctl", ["status", "--config", config, "--json"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
            #expect(rows.count == 5 && rows.allSatisfy { $0["configured"] as? Bool == true }, "\(rows)")
        }
    }

    @Test(arguments: [
        ("ac*me/x", "'ac*me/x' is not a repository pattern: only the name part may hold *, not the owner"),
        (
            "acme/sw?ft*",
            "'acme/sw?ft*' is not a repository pattern: the name part may hold only letters, digits, -, _, . and * (no ?, [ ] or other wildcards)"
        ),
        ("acme/*/x", "'acme/*/x' is not a repository pattern: a pattern is OWNER/NAME with exactly one /"),
    ])
    func aBadPatternIsOneLineAndExit64(pattern: String, message: String) async throws {
        let result = try await run("commitsctl", ["sync", pattern, "--db", store])
        #expect(result.status == 64)
        #expect(result.stderr == "commitsctl: error: \(message); expected \(RepositorySelector.expectedForm)\n")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func patternsRefuseBranchAndSingleNamesRefuseIncludes() async throws {
        let branch = try await run("commitsctl", ["sync", "acme/*", "--branch", "dev", "--db", store])
        #expect(branch.status == 64)
        #expect(branch.stderr.contains("--branch needs a single repository"), "\(branch.stderr)")
        let include = try await run("commitsctl", ["sync", "acme/x", "--include-forks", "--db", store])
        #expect(include.status == 64)
        #expect(include.stderr.contains("--include-forks and --include-archived apply to patterns"), "\(include.stderr)")
    }

    @Test func reposListsAndRemoveStopsMirroringButKeepsHistory() async throws {
        try await withRunning(startOrganizations()) { simulator in
            #expect(try await sync(["acme/*"], simulator).status == 0)
            try simulator.rename(owner: "acme", name: "tool-5", to: "acme", newName: "renamed")
            #expect(try await sync(["acme/*"], simulator).status == 0)
            let listed = try await run("commitsctl", ["repos", "--db", store, "--format", "json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(rows.count == 12)
            let renamed = try #require(rows.first { $0["repository"] as? String == "acme/renamed" })
            #expect(renamed["former_names"] as? [String] == ["acme/tool-5"] && renamed["github_id"] as? Int == 2005)
            #expect(
                renamed["branches"] as? [String] == ["main"] && renamed["commits"] as? Int == 20 && renamed["state"] as? String == "active")
            let table = try await run("commitsctl", ["repos", "--db", store], environment: ["COLUMNS": "120"])
            #expect(table.lines.first?.hasPrefix("REPOSITORY") == true && table.lines.count == 13, "\(table.stdout)")

            let removed = try await run("commitsctl", ["repos", "remove", "acme/tool-1", "--db", store])
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(removed.stdout == "acme/tool-1: removed; its 8 commits stay in the store\n")
            #expect(!FileManager.default.fileExists(atPath: "\(store).locks/acme+tool-1.lock"))
            let after = try await sync(["acme/*"], simulator)
            #expect(after.lines.first == "acme/*: 11 repositories, 1 request (1 not modified)", "\(after.stdout)")
            #expect(StoreInspection(store).repositoryStates()["acme/tool-1"] == "removed")
            #expect(StoreInspection(store).memberSHAsSoFar(of: "acme/tool-1").count == 8)
            // Lock files are left only for repositories still mirrored.
            let locks = try FileManager.default.contentsOfDirectory(atPath: "\(store).locks")
            #expect(locks.count == 11 && !locks.contains("acme+tool-1.lock"), "\(locks)")
            #expect(try await run("commitsctl", ["check", "--db", store]).status == 0)

            // A configuration naming it on its own skips it, and says so.
            let config = try directory.write(
                "removed.yaml", "store: commits.sqlite\napi_url: \(simulator.baseURL)\nrepositories: [acme/tool-1, acme/tool-4]\n")
            let configured = try await run("commitsctl", ["sync", "--config", config], environment: ["GITHUB_TOKEN": "test-token"])
            #expect(configured.status == 0, "\(configured.stderr)")
            #expect(configured.lines.count == 1 && configured.lines[0].hasPrefix("acme/tool-4@main: "), "\(configured.stdout)")
            #expect(
                configured.stderr
                    == "commitsctl: warning: acme/tool-1 was removed from mirroring (commitsctl repos remove); skipped it: take it out of the configuration, or `commitsctl sync acme/tool-1` to mirror it again\n"
            )

            // A mistyped name: an error, and nothing that makes `check` wait forever.
            let typo = try await run("commitsctl", ["repos", "remove", "acme/nope", "--db", store])
            #expect(typo.status == 1)
            #expect(typo.stderr.hasPrefix("commitsctl: error: the store \(store) holds no repository acme/nope;"), "\(typo.stderr)")
            let branch = try await sync(["acme/tool-2", "--branch", "no-such-branch"], simulator)
            #expect(branch.status == 1)
            let unknown = try await sync(["acme/no-such-repository"], simulator)
            #expect(unknown.status == 1)
            #expect(
                !FileManager.default.fileExists(atPath: "\(store).locks/acme+no-such-repository.lock"),
                "a name GitHub does not know leaves no lock file behind")
            let check = try await run("commitsctl", ["check", "--db", store])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            // Synced by name, a removed repository is mirrored again.
            #expect(try await sync(["acme/tool-1"], simulator).status == 0)
            #expect(StoreInspection(store).repositoryStates()["acme/tool-1"] == "active")

            // --purge deletes what no other repository holds, after a checked copy.
            let commitsBefore = StoreInspection(store).commitCount()
            let purged = try await run("commitsctl", ["repos", "remove", "acme/tool-2", "--purge", "--db", store])
            #expect(purged.status == 0, "\(purged.stderr)")
            #expect(
                purged.stdout.hasPrefix(
                    "acme/tool-2: removed and purged: 11 commits deleted, 0 kept for other repositories; the copy made first is \(store).backup-purge-"
                ), "\(purged.stdout)")
            let copy = String(purged.stdout.dropFirst(purged.stdout.range(of: "is ")!.upperBound.utf16Offset(in: purged.stdout)).dropLast())
            #expect(StoreInspection(copy).memberSHAsSoFar(of: "acme/tool-2").count == 11)
            #expect(StoreInspection(store).commitCount() == commitsBefore - 11)
            #expect(StoreInspection(store).memberSHAsSoFar(of: "acme/tool-2").isEmpty)
            #expect(try StoreInspection(store).integrity() == "ok" && (try StoreInspection(store).foreignKeyViolations()) == 0)
            #expect(try await run("commitsctl", ["check", "--db", store]).status == 0)
            // Mirrored again by name, it is fetched whole again.
            let again = try await sync(["acme/tool-2"], simulator)
            #expect(again.lines.first?.hasPrefix("acme/tool-2@main: 11 new, ") == true, "\(again.stdout)")
        }
    }
}
