import MirrorTestSupport
import Foundation
import Logging
import Testing
@testable import MirrorCore

/// The configuration file: the documented example, every setting, the
/// environment overrides, and one exact message per kind of mistake.
@Suite struct ConfigurationTests: ConfigurationParsing {
    static let allKeys =
        "store, api_url, token_file, github_app, repositories, default_interval, min_interval, max_interval, rate_limit_reserve, log_level, mailmap, metrics_listen, webhook_listen, webhook_secret_file, include_forks, include_archived, git_bootstrap, paths, tags, pull_requests, name, lease_duration, request_timeout"

    // MARK: - Valid files

    @Test func patternsWithTheirIncludes() throws {
        let configuration = try parse(
            """
            include_archived: yes
            repositories:
              - acme/*
              - name: other/swift-*
                include_forks: true
                include_archived: false
                interval: 1h
              - acme/widgets
            """)
        #expect(configuration.repositories.map(\.description) == ["acme/widgets"])
        #expect(configuration.patterns.map(\.description) == ["acme/*", "other/swift-*"])
        #expect(configuration.includeArchived && !configuration.includeForks)
        #expect(configuration.includes(for: configuration.patterns[0]) == (forks: false, archived: true))
        #expect(configuration.includes(for: configuration.patterns[1]) == (forks: true, archived: false))
        #expect(
            configuration.interval(
                for: .init(name: RepositoryName(owner: "other", name: "swift-x"), interval: configuration.patterns[1].interval))
                == .seconds(3600))
    }

    @Test func gitBootstrapIsOnUnlessTurnedOff() throws {
        #expect(try parse("repositories: [a/b]").gitBootstrap)
        #expect(try parse("git_bootstrap: false\nrepositories: [a/b]").gitBootstrap == false)
        #expect(
            message("git_bootstrap: sometimes\nrepositories: [a/b]")
                == "cfg.yaml:1: git_bootstrap: 'sometimes' is not true or false; expected true or false")
    }

    @Test func pathsAreReadUnlessTurnedOff() throws {
        #expect(try parse("repositories: [a/b]").paths)
        #expect(try parse("paths: false\nrepositories: [a/b]").paths == false)
        #expect(
            message("paths: maybe\nrepositories: [a/b]") == "cfg.yaml:1: paths: 'maybe' is not true or false; expected true or false")
    }

    @Test func pathsAreReadUnlessARepositoryAPatternOrTheFileTurnsThemOff() throws {
        let named = { (name: String) in RepositoryName(parsing: name)! }
        let configuration = try parse(
            "repositories:\n  - {name: acme/big, paths: false}\n  - {name: acme/*, paths: false}\n  - {name: acme/small, paths: true}")
        #expect(configuration.paths && configuration.repositoryPaths == ["acme/big": false, "acme/small": true])
        #expect(!configuration.readsPaths(of: named("ACME/BIG")) && configuration.readsPaths(of: named("acme/small")))
        #expect(!configuration.readsPaths(of: named("acme/other")) && configuration.readsPaths(of: named("other/x")))
        let off = try parse("paths: false\nrepositories: [a/b, {name: c/d, paths: true}]")
        #expect(!off.readsPaths(of: named("a/b")) && off.readsPaths(of: named("c/d")))
        #expect(
            message("repositories:\n  - {name: a/b, paths: false}\n  - {name: a/b, branch: dev, paths: true}")
                == "cfg.yaml:3: repositories[1].paths: is true, and line 2 says false for a/b; expected one paths: setting for a repository, on any one of its entries"
        )
        #expect(try parse("repositories: [a/b]").changes(to: off).contains("repository c/d: paths default -> true"))
    }

    @Test func pullRequestsAreRecordedWhereTheFileARepositoryOrAPatternTurnsThemOn() throws {
        let named = { (name: String) in RepositoryName(parsing: name)! }
        #expect(try parse("repositories: [a/b]").readsPullRequests(of: named("a/b")) == false)
        let configuration = try parse(
            "repositories:\n  - {name: acme/big, pull_requests: true}\n  - {name: acme/*, pull_requests: true}\n  - {name: acme/small, pull_requests: false}"
        )
        #expect(configuration.repositoryPullRequests == ["acme/big": true, "acme/small": false])
        #expect(configuration.readsPullRequests(of: named("ACME/BIG")) && !configuration.readsPullRequests(of: named("acme/small")))
        #expect(configuration.readsPullRequests(of: named("acme/other")) && !configuration.readsPullRequests(of: named("other/x")))
        let on = try parse("pull_requests: true\nrepositories: [a/b, {name: c/d, pull_requests: false}]")
        #expect(on.readsPullRequests(of: named("a/b")) && !on.readsPullRequests(of: named("c/d")))
        #expect(
            message("pull_requests: often\nrepositories: [a/b]")
                == "cfg.yaml:1: pull_requests: 'often' is not true or false; expected true or false")
        #expect(try parse("repositories: [a/b]").changes(to: on).contains("pull_requests: false -> true"))
    }

    @Test func tagsAreRecordedUnlessARepositoryAPatternOrTheFileSaysOtherwise() throws {
        let configuration = try parse(
            """
            repositories:
              - name: acme/quiet
                tags: false
              - name: acme/quiet
                branch: release
              - name: acme/*
                tags: [v*, "release-*"]
              - name: other/*
              - name: acme/loud
                tags: true
            """)
        let named = { (name: String) in RepositoryName(parsing: name)! }
        #expect(configuration.tags == .all && configuration.repositoryTags == ["acme/quiet": .none, "acme/loud": .all])
        #expect(configuration.tagSelection(for: named("ACME/Quiet")) == .none, "names are matched as GitHub matches them")
        #expect(configuration.tagSelection(for: named("acme/loud")) == .all, "a repository's own entry outranks its pattern")
        let selected = configuration.tagSelection(for: named("acme/other"))
        #expect(selected == .matching(["v*", "release-*"]), "the pattern's")
        #expect(selected.selects("v1.0") && selected.selects("v1/beta") && selected.selects("release-7"))
        #expect(!selected.selects("nightly-v1") && !selected.selects("V1"))
        #expect(configuration.tagSelection(for: named("other/x")) == .all)
        let off = try parse("tags: false\nrepositories: [a/b, {name: c/d, tags: 'v2.*'}]")
        #expect(off.tagSelection(for: named("a/b")) == .none && off.tagSelection(for: named("c/d")) == .matching(["v2.*"]))
        #expect(
            message("repositories:\n  - name: a/b\n    tags: false\n  - name: A/B\n    branch: dev\n    tags: true")
                == "cfg.yaml:6: repositories[1].tags: is true, and line 3 says false for A/B; expected one tags: setting for a repository, on any one of its entries"
        )
        #expect(
            message("tags: []\nrepositories: [a/b]")
                == "cfg.yaml:1: tags: is an empty list; expected true, false, or a tag glob such as 'v*' (or a list of them), as git tag -l matches them"
        )
        #expect(
            message("tags: [v*, {a: b}]\nrepositories: [a/b]")
                == "cfg.yaml:1: tags[1]: is a mapping (key: value pairs); expected true, false, or a tag glob such as 'v*' (or a list of them), as git tag -l matches them"
        )
        let changed = try parse("repositories: [{name: a/b, tags: true}]").changes(to: off)
        #expect(changed.contains("tags: true -> false") && changed.contains("repository a/b: tags true -> default"), "\(changed)")
        #expect(changed.contains("repository c/d: tags default -> v2.*"), "\(changed)")
    }

    @Test(arguments: [
        (
            "repositories: [ac*me/x]",
            "cfg.yaml:1: repositories[0]: 'ac*me/x' is not a repository pattern: only the name part may hold *, not the owner; expected OWNER/NAME, OWNER/* or a glob such as OWNER/swift-* (only * as a wildcard, in the name)"
        ),
        (
            "repositories: [acme/*, ACME/*]",
            "cfg.yaml:1: repositories[1]: ACME/* is listed twice (first on line 1); expected each repository and branch once"
        ),
        (
            "repositories:\n  - name: acme/x\n    include_forks: true",
            "cfg.yaml:3: repositories[0].include_forks: applies only to a pattern such as OWNER/*; expected include_forks and include_archived on OWNER/* entries, or at the top level"
        ),
        ("include_forks: maybe\nrepositories: [acme/*]", "cfg.yaml:1: include_forks: 'maybe' is not true or false; expected true or false"),
    ])
    func patternMistakes(yaml: String, expected: String) {
        #expect(message(yaml) == expected)
    }

    @Test func theDocumentedExampleIsValid() throws {
        let path = PackagePaths.packageRoot.appendingPathComponent("config/commits-mirror.example.yaml").path
        let configuration = try MirrorConfiguration.load(contentsOf: path)
        #expect(configuration.store == "/var/lib/commits-mirror/commits.sqlite")
        #expect(configuration.apiURL == "https://api.github.com")
        #expect(configuration.tokenFile == "/etc/commits-mirror/token")
        #expect(configuration.defaultInterval == .seconds(900))
        #expect(configuration.rateLimitReserve == 500)
        #expect(configuration.logLevel == .info)
        #expect(configuration.metricsListen == ListenAddress(host: "127.0.0.1", port: 9464))
        #expect(
            configuration.repositories.map(\.description) == [
                "swiftlang/swift-evolution", "apple/swift-nio", "apple/swift-argument-parser@main",
            ])
        #expect(configuration.repositories.map { configuration.interval(for: $0) } == [.seconds(900), .seconds(300), .seconds(3600)])
    }

    @Test func metricsListenIsHostAndPort() throws {
        #expect(
            try parse("metrics_listen: '[::1]:9464'\nrepositories: [acme/widgets]\n").metricsListen
                == ListenAddress(host: "::1", port: 9464))
        #expect(try parse("metrics_listen: 0.0.0.0:0\nrepositories: [acme/widgets]\n").metricsListen?.description == "0.0.0.0:0")
        #expect(try parse("repositories: [acme/widgets]\n").metricsListen == nil)
        for bad in ["9464", "localhost:", ":9464", "127.0.0.1:99999", "127.0.0.1:http"] {
            #expect(
                message("metrics_listen: '\(bad)'\nrepositories: [acme/widgets]\n")
                    == "cfg.yaml:1: metrics_listen: '\(bad)' is not HOST:PORT; expected HOST:PORT to serve /metrics, /healthz and /readyz on, e.g. 127.0.0.1:9464"
            )
        }
    }

    /// The packaged file without `store:` names the packaged service's store, so
    /// `commitsctl query --config /etc/commits-mirror/config.yaml` finds it.
    @Test func thePackagedFileWithoutStoreNamesTheServicesStore() throws {
        let packaged = try MirrorConfiguration.parse(yaml: "repositories: [acme/widgets]\n", source: MirrorConfiguration.systemPath)
        #expect(try packaged.resolvedStore(environment: ["HOME": "/home/x"]) == .sqliteFile("/var/lib/commits-mirror/commits.sqlite"))
        #expect(try packaged.resolvedStore(environment: ["STATE_DIRECTORY": "/srv/state"]) == .sqliteFile("/srv/state/commits.sqlite"))
        #expect(
            try parse("repositories: [acme/widgets]\n").resolvedStore(environment: ["HOME": "/home/x"])
                == .sqliteFile("/home/x/.local/share/commits-mirror/commits.sqlite"))
    }

    @Test func minimalFileTakesTheDefaults() throws {
        let configuration = try parse("repositories: [acme/widgets]\n")
        #expect(configuration.store == nil && configuration.apiURL == nil && configuration.tokenFile == nil)
        #expect(configuration.defaultInterval == MirrorConfiguration.defaultInterval)
        #expect(configuration.rateLimitReserve == 0)
        #expect(configuration.logLevel == .info)
        #expect(configuration.repositories == [.init(name: RepositoryName(owner: "acme", name: "widgets"))])
    }

    @Test func relativePathsAreRelativeToTheFile() throws {
        let configuration = try parse(
            "store: data/commits.sqlite\ntoken_file: ../secrets/token\nrepositories: [a/b]\n",
            directory: "/srv/mirror/conf")
        #expect(configuration.store == "/srv/mirror/conf/data/commits.sqlite")
        #expect(configuration.tokenFile == "/srv/mirror/secrets/token")
    }

    @Test func environmentOverridesStoreAPIAndToken() throws {
        let directory = try TemporaryDirectory()
        let tokenFile = directory.path("token")
        try "from-file\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        chmod(tokenFile, 0o600)
        let configuration = try parse(
            """
            store: /var/lib/x/commits.sqlite
            api_url: https://ghe.example.com/api/v3
            token_file: \(tokenFile)
            repositories: [a/b]
            """)
        #expect(try configuration.resolvedStore(environment: [:]) == .sqliteFile("/var/lib/x/commits.sqlite"))
        #expect(try configuration.resolvedStore(environment: ["COMMITS_DB": "/tmp/other.sqlite"]) == .sqliteFile("/tmp/other.sqlite"))
        #expect(configuration.resolvedAPIURL(environment: [:]) == "https://ghe.example.com/api/v3")
        #expect(configuration.resolvedAPIURL(environment: ["GITHUB_API_URL": "http://127.0.0.1:9"]) == "http://127.0.0.1:9")
        #expect(try configuration.resolveToken(environment: [:])?.source == "file \(tokenFile)")
        #expect(try configuration.resolveToken(environment: ["GITHUB_TOKEN": "t"])?.source == "environment variable GITHUB_TOKEN")
        #expect(try configuration.resolveToken(environment: ["GH_TOKEN": "t"])?.source == "environment variable GH_TOKEN")

        let defaults = try parse("repositories: [a/b]\n")
        #expect(
            try defaults.resolvedStore(environment: ["STATE_DIRECTORY": "/var/lib/commits-mirror"])
                == .sqliteFile("/var/lib/commits-mirror/commits.sqlite"))
        #expect(
            try defaults.resolvedStore(environment: ["HOME": "/home/ada"])
                == .sqliteFile("/home/ada/.local/share/commits-mirror/commits.sqlite"))
        #expect(try defaults.resolveToken(environment: [:]) == nil)
    }

    @Test func locatingTheFile() throws {
        #expect(MirrorConfiguration.locate(explicit: "/x.yaml", environment: ["COMMITS_MIRROR_CONFIG": "/y.yaml"]) == "/x.yaml")
        #expect(MirrorConfiguration.locate(explicit: nil, environment: ["COMMITS_MIRROR_CONFIG": "/y.yaml"]) == "/y.yaml")
        #expect(
            MirrorConfiguration.locate(explicit: nil, environment: ["CONFIGURATION_DIRECTORY": "/etc/commits-mirror"])
                == "/etc/commits-mirror/config.yaml")
    }

    @Test(arguments: [
        ("90s", 90), ("15m", 900), ("1h", 3600), ("1h30m", 5400), ("2m5s", 125), ("300", 300),
    ])
    func durations(_ text: String, _ seconds: Int) {
        #expect(DurationText.parse(text) == .seconds(seconds))
    }

    @Test func badDurationsAndFormatting() {
        for text in ["", "0", "-5", "5 minutes", "m", "10x", "1.5h", "15m3"] {
            #expect(DurationText.parse(text) == nil, "\(text)")
        }
        #expect(DurationText.format(.seconds(5400)) == "1h30m")
        #expect(DurationText.format(.seconds(90)) == "1m30s")
        #expect(DurationText.format(.milliseconds(500)) == "0.5s")
    }

    @Test func changesAreDescribedForReloadLogs() throws {
        let old = try parse(
            """
            default_interval: 15m
            repositories:
              - acme/widgets
              - name: acme/gadgets
                interval: 5m
            """)
        let new = try parse(
            """
            default_interval: 10m
            log_level: debug
            repositories:
              - name: acme/gadgets
                interval: 1m
              - acme/gizmos
            """)
        #expect(
            old.changes(to: new) == [
                "default_interval: 15m -> 10m",
                "log_level: info -> debug",
                "repository acme/gadgets: interval 5m -> 1m",
                "repository added: acme/gizmos",
                "repository removed: acme/widgets",
            ])
        #expect(old.changes(to: old).isEmpty)
    }

    // MARK: - One message per mistake

    @Test func unknownKey() {
        #expect(
            message("repositories: [a/b]\nintervall: 5m\n")
                == "cfg.yaml:2: intervall: unknown key; expected one of \(Self.allKeys)")
    }

    @Test func unknownKeyInARepositoryEntry() {
        #expect(
            message(
                """
                repositories:
                  - name: acme/widgets
                    brnach: main
                """)
                == "cfg.yaml:3: repositories[0].brnach: unknown key; expected one of name, branch, branches, interval, include_forks, include_archived, tags, paths, pull_requests"
        )
    }

    @Test func wrongTypes() {
        #expect(
            message("rate_limit_reserve: lots\nrepositories: [a/b]\n")
                == "cfg.yaml:1: rate_limit_reserve: 'lots' is not a whole number of requests; expected a whole number of requests, 0 or more, e.g. 500"
        )
        #expect(
            message("rate_limit_reserve: -3\nrepositories: [a/b]\n")
                == "cfg.yaml:1: rate_limit_reserve: '-3' is not a whole number of requests; expected a whole number of requests, 0 or more, e.g. 500"
        )
        #expect(
            message("repositories: acme/widgets\n")
                == "cfg.yaml:1: repositories: is a single value ('acme/widgets'); expected a list of OWNER/NAME or OWNER/* entries (or `name:`, `branch:`, `branches:`, `interval:` mappings)"
        )
        #expect(
            message("repositories: []\n")
                == "cfg.yaml:1: repositories: is an empty list; expected a list of OWNER/NAME or OWNER/* entries (or `name:`, `branch:`, `branches:`, `interval:` mappings)"
        )
        #expect(
            message("store: [a, b]\nrepositories: [a/b]\n")
                == "cfg.yaml:1: store: is a list; expected the path of the SQLite store file, or a postgresql:// URI")
        #expect(
            message("store:\nrepositories: [a/b]\n")
                == "cfg.yaml:1: store: has no value; expected the path of the SQLite store file, or a postgresql:// URI")
        #expect(
            message("default_interval: 5 minutes\nrepositories: [a/b]\n")
                == "cfg.yaml:1: default_interval: '5 minutes' is not a duration; expected \(DurationText.expectedForm)")
        #expect(
            message("repositories:\n  - name: a/b\n    interval: {every: 5m}\n")
                == "cfg.yaml:3: repositories[0].interval: is a mapping (key: value pairs); expected \(DurationText.expectedForm)")
        #expect(
            message("log_level: loud\nrepositories: [a/b]\n")
                == "cfg.yaml:1: log_level: 'loud' is not a log level; expected one of trace, debug, info, notice, warning, error, critical")
        #expect(
            message("api_url: ftp://example.com\nrepositories: [a/b]\n")
                == "cfg.yaml:1: api_url: 'ftp://example.com' is not an http(s) URL; expected an http(s) URL such as https://api.github.com (GHES: https://HOST/api/v3)"
        )
        #expect(
            message("- a/b\n")
                == "cfg.yaml:1: the top level is a list; expected `key: value` settings as in config/commits-mirror.example.yaml")
    }

    @Test func malformedRepositoryNames() {
        #expect(
            message("repositories:\n  - acme/widgets\n  - acme widgets\n")
                == "cfg.yaml:3: repositories[1]: 'acme widgets' is not a repository name; expected OWNER/NAME, e.g. swiftlang/swift-evolution"
        )
        #expect(
            message("repositories:\n  - name: acme/wid/gets\n")
                == "cfg.yaml:2: repositories[0].name: 'acme/wid/gets' is not a repository name; expected OWNER/NAME, e.g. swiftlang/swift-evolution"
        )
        #expect(
            message("repositories:\n  - branch: main\n")
                == "cfg.yaml:2: repositories[0].name: missing; expected `name: OWNER/NAME` or `name: OWNER/*`, e.g. `name: swiftlang/swift-evolution`"
        )
        #expect(
            message("repositories:\n  - acme/widgets\n  - ACME/Widgets\n")
                == "cfg.yaml:3: repositories[1]: ACME/Widgets is listed twice (first on line 2); expected each repository and branch once")
    }

    @Test func yamlMistakesCarryTheirPosition() {
        #expect(
            message("repositories: [a/b]\nstore: x\nstore: y\n")
                == "cfg.yaml:2: store: appears more than once in the same mapping; expected each key once")
        let syntax = message("repositories:\n  - a/b\n log_level: info\n")
        #expect(syntax?.hasPrefix("cfg.yaml:3:") == true, "\(syntax ?? "")")
        #expect(syntax?.contains(": not valid YAML: ") == true)
        #expect(syntax?.hasSuffix("; expected valid YAML like config/commits-mirror.example.yaml") == true)
        #expect(
            message("")
                == "cfg.yaml: the file is empty; expected settings as in config/commits-mirror.example.yaml (at least `repositories:`)")
        #expect(
            message("store: /x\n")
                == "cfg.yaml: repositories: missing; expected a list of repositories to mirror, e.g. `repositories: [swiftlang/swift-evolution]`"
        )
    }

    @Test func unreadableTokenFile() throws {
        let configuration = try parse("repositories: [a/b]\ntoken_file: /nonexistent/token\n")
        #expect(
            throws: ConfigurationError(
                file: "cfg.yaml", line: 2, key: "token_file", problem: "cannot read /nonexistent/token: No such file or directory",
                expected: "a file this user can read holding the token on its first line")
        ) {
            try configuration.resolveToken(environment: [:])
        }
        // Not consulted at all when the environment provides the token.
        #expect(try configuration.resolveToken(environment: ["GITHUB_TOKEN": "x"])?.source == "environment variable GITHUB_TOKEN")
        #expect(
            "\(try #require(throws: ConfigurationError.self) { try configuration.resolveToken(environment: [:]) })"
                == "cfg.yaml:2: token_file: cannot read /nonexistent/token: No such file or directory; expected a file this user can read holding the token on its first line"
        )
    }

    @Test func unreadableConfigurationFile() {
        #expect(
            throws: ConfigurationError(
                file: "/nonexistent/config.yaml", problem: "cannot read the configuration file: No such file or directory",
                expected: "a readable YAML file like config/commits-mirror.example.yaml")
        ) {
            try MirrorConfiguration.load(contentsOf: "/nonexistent/config.yaml")
        }
    }
}
