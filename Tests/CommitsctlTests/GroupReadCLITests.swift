import MirrorTestSupport
import Foundation
import GitHubSim
import Testing

/// Issue #15 acceptance 4, as a process test: a member of the store's group
/// reads a store whose writer has stopped, in a directory it may not write,
/// finding the store through `--config`; a non-member is told it is a
/// permission problem, with the path. Needs root to drop to `nobody` with a group.
@Suite struct GroupReadCLITests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// A group `nobody` is not in; the test adds it with setpriv.
    static let group: gid_t = 1  // "daemon" on Debian

    @Test(.enabled(if: getuid() == 0, "needs root to run commitsctl as nobody with a supplementary group"))
    func aGroupMemberReadsTheStoppedServicesStoreThroughItsConfiguration() async throws {
        let simulator = try GitHubSimulator(repositories: [
            SimRepository.widgets(id: 701, SyntheticSpec(commits: 400, authors: 6, mergeEvery: 9, seed: 11))
        ])
        try await simulator.start()
        defer { Task { try? await simulator.shutdown() } }

        // The service's layout: /var/lib/commits-mirror 0750 owner:group, files 0640 (UMask=0027).
        let state = directory.path("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let store = state + "/commits.sqlite"
        let config = try directory.write("config.yaml", "store: \(store)\nrepositories:\n  - acme/widgets\n")
        let sync = try await run(
            "commitsctl", ["sync", "acme/widgets", "--db", store, "--api-url", simulator.baseURL],
            environment: ["GITHUB_TOKEN": "group-read-token"])
        #expect(sync.status == 0, "\(sync.stderr)")
        // The writer has exited: its WAL side files stay (SQLITE_FCNTL_PERSIST_WAL).
        #expect(FileManager.default.fileExists(atPath: store + "-wal"))
        #expect(FileManager.default.fileExists(atPath: store + "-shm"))
        chmod(directory.path(""), 0o755)
        chmod(config, 0o644)
        chown(state, 0, Self.group)
        chmod(state, 0o750)
        for file in [store, store + "-wal", store + "-shm"] {
            chown(file, 0, Self.group)
            chmod(file, 0o640)
        }
        // A copy nobody can surely execute, whatever the permissions above the build directory.
        let binary = directory.path("commitsctl")
        try FileManager.default.copyItem(atPath: Executables.path("commitsctl"), toPath: binary)
        let authors = try await run("commitsctl", ["authors", "--config", config, "--top", "1", "--format", "csv"])
        let name = try #require(
            authors.stdout.split(whereSeparator: \.isNewline).dropFirst().first?.split(separator: ",").first.map(String.init),
            "\(authors.stdout)\(authors.stderr)")

        func asNobody(groups: String) async throws -> ProcessResult {
            try await runProgram(
                "/usr/bin/setpriv",
                [
                    "--reuid=65534", "--regid=65534", groups, "--", binary,
                    "query", "--config", config, "--author", name, "--limit", "5",
                ])
        }
        let member = try await asNobody(groups: "--groups=\(Self.group)")
        #expect(member.status == 0, "\(member.stderr)")
        let lines = member.stdout.split(separator: "\n").filter { $0.contains(name) }
        #expect(!lines.isEmpty, "\(member.stdout)")

        let outsider = try await asNobody(groups: "--clear-groups")
        #expect(outsider.status == 1)
        #expect(
            outsider.stderr.hasPrefix(
                "commitsctl: error: permission denied reading the store \(store): this user may not enter the directory \(state)"),
            "\(outsider.stderr)")
        let status = try await runProgram(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "--", binary,
                "status", "--config", config,
            ])
        #expect(status.status == 1, "never 'never synced': \(status.stdout)")
        #expect(status.stderr.contains("permission denied"), "\(status.stderr)")
    }
}
