import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// commitsd with `repositories: [acme/*]`: the configuration is accepted, and the
/// daemon discovers, mirrors and keeps polling the owner's repositories.
@Suite struct CommitsdDiscoveryTests {
    @Test func checkConfigAcceptsPatterns() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(
            "config.yaml",
            """
            store: commits.sqlite
            include_forks: true
            repositories:
              - acme/*
              - name: umbrella/swift-*
                include_archived: true
                interval: 1h
              - umbrella/tool
            """)
        let result = try await run("commitsd", ["--check-config", "--config", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("; 1 repository: umbrella/tool; 2 patterns: acme/*, umbrella/swift-*\n"), "\(result.stdout)")

        let bad = try directory.write("bad.yaml", "repositories:\n  - name: acme/*\n    branch: dev\n")
        let refused = try await run("commitsd", ["--check-config", "--config", bad])
        #expect(refused.status == 2)
        #expect(
            refused.stderr
                == "commitsd: error: \(bad):2: repositories[0].branch: a pattern mirrors each repository's default branch; expected branches: [NAME] on an OWNER/* entry, or the repository on its own with branch:\n"
        )
    }

    @Test func theDaemonDiscoversMirrorsAndPollsAnOwnersRepositories() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("state/commits.sqlite")
        let repositories = (1...4).map { index in
            SimRepository(
                owner: "acme", name: "lib-\(index)", id: 5000 + index,
                source: .synthetic(SyntheticSpec(commits: 50 * index, seed: UInt64(index))))
        }
        let others = [SimRepository(owner: "umbrella", name: "lib-1", id: 6001, source: .synthetic(SyntheticSpec(commits: 20)))]
        let simulator = try GitHubSimulator(repositories: repositories + others)
        try await simulator.start()
        try await withRunning(simulator) { simulator in
            // The histories start 20 commits back, so later pushes can be seen arriving.
            for index in 1...4 { try simulator.moveHead(owner: "acme", name: "lib-\(index)", back: 20) }
            let daemon = try DaemonProcess.mirroring(["acme/*"], from: simulator, in: directory, logLevel: "info")
            defer { daemon.stop() }
            let inspection = StoreInspection(store)
            func caughtUp(_ name: String) throws -> Bool {
                inspection.memberSHAsSoFar(of: "acme/\(name)") == (try simulator.reachableSHAs(owner: "acme", name: name))
            }
            #expect(
                try await waitUntil(timeout: .seconds(30)) { try (1...4).allSatisfy { try caughtUp("lib-\($0)") } }, "\(daemon.log)")
            // Polled: pushes to every repository arrive.
            for index in 1...4 { try simulator.moveHead(owner: "acme", name: "lib-\(index)", forward: 7) }
            #expect(
                try await waitUntil(timeout: .seconds(30)) { try (1...4).allSatisfy { try caughtUp("lib-\($0)") } }, "\(daemon.log)")
            // A repository created meanwhile is discovered on a later listing and mirrored.
            try simulator.addRepository(
                SimRepository(owner: "acme", name: "fresh", id: 5100, source: .synthetic(SyntheticSpec(commits: 33, seed: 5))))
            #expect(try await waitUntil(timeout: .seconds(30)) { try caughtUp("fresh") }, "\(daemon.log)")
            // One deleted is marked gone, its history kept.
            let kept = inspection.memberSHAsSoFar(of: "acme/lib-2")
            try simulator.deleteRepository(owner: "acme", name: "lib-2")
            #expect(await waitUntil(timeout: .seconds(30)) { inspection.repositoryStates()["acme/lib-2"] == "gone" }, "\(daemon.log)")
            #expect(inspection.memberSHAsSoFar(of: "acme/lib-2") == kept)
            #expect(inspection.repositoryStates()["umbrella/lib-1"] == nil, "another owner's repository is never mirrored")
            #expect(daemon.log.contains("notice discovered repositories to mirror"), "\(daemon.log)")
            #expect(SecretScan.leaks(in: ["log": daemon.log]).isEmpty)
        }
    }

    @Test func aPatternAddedOnReloadIsDiscovered() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("state/commits.sqlite")
        try await withRunning(startSimulator([("lib-a", 30), ("lib-b", 40), ("other", 10)])) { simulator in
            let daemon = try DaemonProcess.mirroring(["acme/other"], from: simulator, in: directory, logLevel: "info")
            defer { daemon.stop() }
            let inspection = StoreInspection(store)
            func mirrored(_ name: String) throws -> Bool {
                inspection.memberSHAsSoFar(of: "acme/\(name)") == (try simulator.reachableSHAs(owner: "acme", name: name))
            }
            #expect(try await waitUntil(timeout: .seconds(20)) { try mirrored("other") }, "\(daemon.log)")
            #expect(inspection.repositoryStates().keys.sorted() == ["acme/other"])
            _ = try directory.write(
                "config.yaml",
                """
                store: state/commits.sqlite
                api_url: \(simulator.baseURL)
                default_interval: 1s
                repositories:
                  - acme/other
                  - acme/lib-*

                """)
            daemon.signal(SIGHUP)
            #expect(try await waitUntil(timeout: .seconds(20)) { try mirrored("lib-a") && mirrored("lib-b") }, "\(daemon.log)")
            #expect(daemon.log.contains("notice configuration changed config.change=\"pattern added: acme/lib-*\""), "\(daemon.log)")

            // Removed while the daemon runs: neither the named one nor one a pattern selects is synced again.
            for name in ["other", "lib-a"] {
                // 75 is "try again": the daemon held the repository's lock for a poll at that moment.
                var removed = try await run("commitsctl", ["repos", "remove", "acme/\(name)", "--db", store])
                for _ in 0..<50 where removed.status == 75 {
                    try await Task.sleep(for: .milliseconds(100))
                    removed = try await run("commitsctl", ["repos", "remove", "acme/\(name)", "--db", store])
                }
                #expect(removed.status == 0, "\(removed.stderr)")
            }
            let heads = (try simulator.headSHA(owner: "acme", name: "other"), try simulator.headSHA(owner: "acme", name: "lib-a"))
            for name in ["other", "lib-a", "lib-b"] { try simulator.moveHead(owner: "acme", name: name, back: 3) }
            let movedB = try simulator.headSHA(owner: "acme", name: "lib-b")
            func recordedHeads() async throws -> [String: String] {
                let status = try await run("commitsctl", ["status", "--db", store, "--json"])
                let rows = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]] ?? []
                return Dictionary(
                    rows.compactMap { row in (row["head_sha"] as? String).map { (row["repository"] as? String ?? "", $0) } },
                    uniquingKeysWith: { first, _ in first })
            }
            // lib-b is still mirrored: once its move is recorded, rounds have gone by since the removals.
            var recorded: [String: String] = [:]
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                recorded = try await recordedHeads()
                if recorded["acme/lib-b"] == movedB && daemon.log.contains("not syncing a repository removed from mirroring") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(recorded["acme/lib-b"] == movedB, "\(daemon.log)")
            #expect(recorded["acme/other"] == heads.0 && recorded["acme/lib-a"] == heads.1, "\(recorded)")
            #expect(daemon.log.contains("not syncing a repository removed from mirroring"), "\(daemon.log)")
            #expect(inspection.repositoryStates()["acme/other"] == "removed" && inspection.repositoryStates()["acme/lib-a"] == "removed")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
        }
    }
}
