import MirrorTestSupport
import Foundation
import Testing

/// `commitsd --check-config` and start-up with a bad file: one line naming the
/// file, line, key and expected form on stderr, exit status 2.
@Suite struct CommitsdConfigTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    func check(_ yaml: String, environment: [String: String] = [:]) async throws -> (ProcessResult, String) {
        let path = try directory.write("config-\(UUID().uuidString.prefix(6)).yaml", yaml)
        return (try await run("commitsd", ["--check-config", "--config", path], environment: environment), path)
    }

    @Test func validFileIsSummarized() async throws {
        let token = try directory.write("token", "abc\n")
        chmod(token, 0o600)
        let (result, path) = try await check(
            """
            store: data/commits.sqlite
            api_url: https://ghe.example.com/api/v3
            token_file: token
            repositories:
              - acme/widgets
              - name: acme/gadgets
                branch: release
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == "\(path): valid; store \(directory.path("data/commits.sqlite")); API https://ghe.example.com/api/v3; token from file \(token); 2 repositories: acme/widgets, acme/gadgets@release\n"
        )
        #expect(result.stderr.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.path("data")), "checking creates nothing")
        let (one, _) = try await check("repositories: [acme/widgets]\n")
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.hasSuffix("; 1 repository: acme/widgets\n"), "\(one.stdout)")
        let (adaptive, _) = try await check("min_interval: 1m\nmax_interval: 6h\nrepositories: [acme/widgets]\n")
        #expect(adaptive.status == 0, "\(adaptive.stderr)")
        #expect(
            adaptive.stdout.hasSuffix(
                "; 1 repository: acme/widgets; adaptive polling between 1m and 6h (entries with their own interval stay on it)\n"),
            "\(adaptive.stdout)")
    }

    @Test func environmentOverridesAreShown() async throws {
        let (result, _) = try await check(
            "store: /var/lib/x.sqlite\nrepositories: [acme/widgets]\n",
            environment: [
                "COMMITS_DB": "/tmp/elsewhere.sqlite", "GH_TOKEN": "t",
                "GITHUB_API_URL": "http://127.0.0.1:8080",
            ])
        #expect(result.status == 0)
        // The service keeps the store its configuration names, and says it ignored $COMMITS_DB.
        #expect(result.stdout.contains("; store /var/lib/x.sqlite; API http://127.0.0.1:8080; token from environment variable GH_TOKEN;"))
        #expect(result.stderr.contains("warning ignoring $COMMITS_DB: the configuration names the store"), "\(result.stderr)")
        #expect(result.stderr.contains("store.ignored=/tmp/elsewhere.sqlite"), "\(result.stderr)")

        // Without `store`, $COMMITS_DB still chooses it.
        let (unnamed, _) = try await check("repositories: [acme/widgets]\n", environment: ["COMMITS_DB": "/tmp/elsewhere.sqlite"])
        #expect(unnamed.stdout.contains("; store /tmp/elsewhere.sqlite;"), "\(unnamed.stdout)")
        #expect(!unnamed.stderr.contains("ignoring"))
    }

    @Test(arguments: [
        (
            "repositories: [acme/widgets]\nintervall: 5m\n",
            ":2: intervall: unknown key; expected one of store, api_url, token_file, github_app, repositories, default_interval, min_interval, max_interval, rate_limit_reserve, log_level, mailmap, metrics_listen, webhook_listen, webhook_secret_file, include_forks, include_archived, git_bootstrap, paths, tags, pull_requests, name, lease_duration, request_timeout"
        ),
        (
            "repositories:\n  - name: acme/widgets\n    brnach: main\n",
            ":3: repositories[0].brnach: unknown key; expected one of name, branch, branches, interval, include_forks, include_archived, tags, paths, pull_requests"
        ),
        (
            "rate_limit_reserve: plenty\nrepositories: [acme/widgets]\n",
            ":1: rate_limit_reserve: 'plenty' is not a whole number of requests; expected a whole number of requests, 0 or more, e.g. 500"
        ),
        (
            "default_interval: 10m\nmin_interval: 1h\nmax_interval: 30m\nrepositories: [acme/widgets]\n",
            ":2: min_interval: the shortest interval 1h (min_interval) is longer than the longest, 30m (max_interval); expected min_interval no longer than max_interval"
        ),
        (
            "max_interval: 2 days\nrepositories: [acme/widgets]\n",
            ":1: max_interval: '2 days' is not a duration; expected a duration such as 90s, 15m, 1h or 1h30m (or a number of seconds)"
        ),
        (
            "default_interval: [1, 2]\nrepositories: [acme/widgets]\n",
            ":1: default_interval: is a list; expected a duration such as 90s, 15m, 1h or 1h30m (or a number of seconds)"
        ),
        (
            "repositories:\n  - acme/widgets\n  - widgets\n",
            ":3: repositories[1]: 'widgets' is not a repository name; expected OWNER/NAME, e.g. swiftlang/swift-evolution"
        ),
        (
            "repositories: [acme/widgets]\ntoken_file: /nonexistent/token\n",
            ":2: token_file: cannot read /nonexistent/token: No such file or directory; expected a file this user can read holding the token on its first line"
        ),
        (
            "repositories: [acme/widgets\n",
            ":2:1: not valid YAML: did not find expected ',' or ']'; expected valid YAML like config/commits-mirror.example.yaml"
        ),
    ])
    func badFileIsOneLineAndExit2(_ yaml: String, _ expected: String) async throws {
        let (result, path) = try await check(yaml)
        #expect(result.status == 2)
        #expect(result.stderr == "commitsd: error: \(path)\(expected)\n")
        #expect(result.stdout.isEmpty)
    }

    /// A secret file named by mistake (here 50 MiB, sparse) is refused in one line naming the
    /// file and the limit, whichever secret it was to hold, and never read whole.
    @Test(arguments: [
        ("token_file: big\nrepositories: [acme/widgets]\n", ":1: token_file: token file "),
        (
            "webhook_listen: 127.0.0.1:0\nwebhook_secret_file: big\nrepositories: [acme/widgets]\n",
            ": webhook_secret_file: the webhook secret file "
        ),
        (
            "github_app:\n  app_id: 7\n  installation_id: 9\n  private_key_file: big\nrepositories: [acme/widgets]\n",
            ":1: github_app: the GitHub App private key file "
        ),
    ])
    func anOversizedSecretFileIsRefusedInOneLine(_ yaml: String, _ expected: String) async throws {
        let big = directory.path("big")
        #expect(FileManager.default.createFile(atPath: big, contents: nil, attributes: [.posixPermissions: 0o600]))
        let handle = try #require(FileHandle(forWritingAtPath: big))
        try handle.truncate(atOffset: 50 << 20)
        try handle.close()
        let (result, path) = try await check(yaml.replacingOccurrences(of: " big\n", with: " \(big)\n"))
        #expect(result.status == 2, "\(result.stderr)")
        #expect(
            result.stderr
                == "commitsd: error: \(path)\(expected)\(big) is larger than 64 KiB; a secret file holds only the secret: check the path\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func missingOrUnreadableFile() async throws {
        let missing = try await run("commitsd", ["--check-config"], environment: ["COMMITS_MIRROR_CONFIG": directory.path("nope.yaml")])
        #expect(missing.status == 2)
        #expect(
            missing.stderr
                == "commitsd: error: \(directory.path("nope.yaml")): cannot read the configuration file: No such file or directory; expected a readable YAML file like config/commits-mirror.example.yaml\n"
        )
    }

    @Test func serveRefusesABadFileBeforeStarting() async throws {
        let path = try directory.write("config.yaml", "repositories: [acme/widgets]\nlog_level: chatty\n")
        let result = try await run("commitsd", ["serve", "--config", path])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "commitsd: error: \(path):2: log_level: 'chatty' is not a log level; expected one of trace, debug, info, notice, warning, error, critical\n"
        )
    }
}

/// Issue #4 acceptance 4: the units pass `systemd-analyze verify`.
@Suite struct CommitsdSystemdUnitTests {
    static let analyzer = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: analyzer != nil, "systemd-analyze is not installed"))
    func unitsVerify() async throws {
        // verify insists ExecStart's binary exists: check a copy pointing at the built products.
        let directory = try TemporaryDirectory()
        let units = ["commitsd.service", "commits-sync.service", "commits-sync.timer"]
        var paths: [String] = []
        for unit in units {
            let text = try String(contentsOf: PackagePaths.packageRoot.appendingPathComponent("systemd/\(unit)"), encoding: .utf8)
            #expect(text.contains("/usr/local/bin/") || unit.hasSuffix(".timer"))
            paths.append(
                try directory.write(unit, text.replacingOccurrences(of: "/usr/local/bin/", with: Executables.productsDirectory.path + "/")))
        }
        // The man pages Documentation= names come with the package, not with the build.
        let verified = try await runProgram(Self.analyzer!, ["verify", "--man=no"] + paths)
        // verify exits 0 even for unknown keys; any output at all is a finding.
        let text = verified.stdout + verified.stderr
        #expect(verified.status == 0 && text.isEmpty, "\(text)")
    }

    @Test func serviceUnitHasTheRequiredSettings() throws {
        let text = try String(contentsOf: PackagePaths.packageRoot.appendingPathComponent("systemd/commitsd.service"), encoding: .utf8)
        for line in [
            "Type=notify", "ExecStart=/usr/local/bin/commitsd serve --config /etc/commits-mirror/config.yaml",
            "ExecReload=/bin/sh -c 'kill -HUP \"$$MAINPID\"'", "User=commits-mirror", "StateDirectory=commits-mirror",
            "ConfigurationDirectory=commits-mirror", "LoadCredential=github-token:/etc/commits-mirror/token",
            "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes",
            "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", "SystemCallFilter=@system-service", "Restart=on-failure",
            "RestartPreventExitStatus=2",
        ] {
            #expect(text.split(separator: "\n").contains(Substring(line)), "missing \(line)")
        }
        let oneshot = try String(
            contentsOf: PackagePaths.packageRoot.appendingPathComponent("systemd/commits-sync.service"), encoding: .utf8)
        #expect(
            oneshot.contains(
                "Type=oneshot\nExecStart=/usr/local/bin/commitsctl sync --config /etc/commits-mirror/config.yaml\nSuccessExitStatus=75"))
    }
}
