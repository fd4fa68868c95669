import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// `branches:` (issue #29): branch patterns match as `git branch --list PATTERN` does, and the
/// configuration takes a list of names (each mirrored on its own), refusing in one line what it
/// cannot do yet.
@Suite struct BranchSelectionTests {
    static let branches = [
        "main", "release/5.10", "release/5.9", "release/6/hotfix", "releases", "feature/x", "Release/1", "v1.0", "v1.0.1",
    ]

    static let patterns = ["*", "release/*", "release*", "*/x", "v1.*", "*.1", "main", "re*se*", "**", "*hotfix", "Release/*"]

    /// The branches `git branch --list PATTERN` prints in a repository holding `branches`.
    static func gitList(_ pattern: String, scratch: TemporaryDirectory) async throws -> Set<String> {
        let repository = scratch.path("repo")
        let environment = ["HOME": scratch.path("."), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CEILING_DIRECTORIES": scratch.path(".")]
        if !FileManager.default.fileExists(atPath: repository) {
            for arguments in [
                ["init", "--quiet", "-b", "main", repository],
                ["-C", repository, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty", "-m", "x"],
            ] {
                #expect(try await runProgram("/usr/bin/git", arguments, environment: environment).status == 0)
            }
            for branch in branches where branch != "main" {
                #expect(try await runProgram("/usr/bin/git", ["-C", repository, "branch", branch], environment: environment).status == 0)
            }
        }
        let listed = try await runProgram(
            "/usr/bin/git", ["-C", repository, "branch", "--list", "--format=%(refname:short)", pattern], environment: environment)
        return Set(listed.lines)
    }

    @Test func patternsSelectWhatGitBranchListSelects() async throws {
        let scratch = try TemporaryDirectory()
        for text in Self.patterns {
            let pattern = try #require(BranchPattern(parsing: text), "\(text)")
            let ours = Set(Self.branches.filter(pattern.matches))
            let gits = try await Self.gitList(text, scratch: scratch)
            #expect(ours == gits, "\(text): ours \(ours.sorted()), git's \(gits.sorted())")
        }
        #expect(BranchPattern.every.matches("release/6/hotfix"))
    }

    @Test(arguments: ["", "..", "release/..*", "*.lock", "a b*", "-*", "*/", "/x*", "HEAD", "x?", "[ab]*"])
    func whatCannotBeABranchIsNoPattern(text: String) {
        #expect(BranchPattern(parsing: text) == nil)
        #expect(BranchPattern.problem(with: text) != nil)
    }

    @Test func aSelectionKeepsItsOrderAndSaysWhetherItNeedsDiscovery() throws {
        let names = BranchSelection(try ["main", "release/1.0"].map { try #require(BranchPattern(parsing: $0)) })
        #expect(!names.needsDiscovery && names.names == ["main", "release/1.0"])
        let globs = BranchSelection(try ["release/*", "main"].map { try #require(BranchPattern(parsing: $0)) })
        #expect(globs.needsDiscovery && globs.names == ["main"])
        #expect(globs.selected(from: ["dev", "main", "release/2", "release"]) == ["main", "release/2"])
        #expect(BranchSelection.every.selected(from: ["b", "a/c"]) == ["b", "a/c"])
    }

    func parse(_ entry: String) throws -> MirrorConfiguration {
        try MirrorConfiguration.parse(yaml: "repositories:\n  - name: acme/widgets\n\(entry)", source: "cfg.yaml")
    }

    func message(_ entry: String) -> String {
        do {
            _ = try parse(entry)
            return "(accepted)"
        } catch {
            return "\(error)"
        }
    }

    @Test func branchNamesBecomeOneEntryEachWithTheEntrysInterval() throws {
        let configuration = try parse("    branches: [main, release/1.0]\n    interval: 5m\n")
        #expect(configuration.repositories.map(\.description) == ["acme/widgets@main", "acme/widgets@release/1.0"])
        #expect(configuration.repositories.allSatisfy { $0.interval == .seconds(300) && $0.line == 2 })
        let one = try parse("    branches: dev\n")
        #expect(one.repositories.map(\.description) == ["acme/widgets@dev"])
    }

    @Test func whatBranchesCannotSayIsRefusedInOneLine() {
        #expect(
            message("    branch: main\n    branches: [dev]\n")
                == "cfg.yaml:2: repositories[0].branch: is set, and so is branches; the two are exclusive; expected either branch: (one branch) or branches: (a list): remove one of them"
        )
        #expect(
            message("    branches: [main, '..']\n")
                == "cfg.yaml:3: repositories[0].branches[1]: '..' is not a branch name or glob: it contains '..'; expected branch names or globs such as main or \"release/*\" (\"*\" for every branch)"
        )
        #expect(message("    branches: []\n").hasPrefix("cfg.yaml:3: repositories[0].branches: is an empty list; expected branch names"))
        #expect(message("    branches: {a: b}\n").contains("repositories[0].branches: is a mapping"))
        #expect(message("    branches: [main, main]\n").contains("repositories[0].branches[1]: 'main' is listed twice"))
        for text in [
            message("    branches: [main]\n  - name: acme/widgets\n    branch: main\n"),
            message("    branches: [main, dev]\n  - name: acme/widgets\n    branches: [dev]\n"),
        ] {
            #expect(text.contains("is listed twice (first on line 2)"), "\(text)")
        }
        for text in [message("    branch: main\n    branches: [dev]\n"), message("    branches: [main, main]\n")] {
            #expect(!text.contains("\n"))
        }
    }

    @Test func aPatternGivesEachRepositoryItSelectsTheWholeSelection() throws {
        // On a pattern, names and globs alike are matched against each selected repository's listing.
        let pattern = try MirrorConfiguration.parse(
            yaml: "repositories:\n  - name: acme/*\n    branches: [main, 'release/*']\n    interval: 10m\n", source: "cfg.yaml")
        #expect(pattern.repositories.isEmpty && pattern.branchGlobs.isEmpty)
        let entry = try #require(pattern.patterns.first)
        let globs = try #require(entry.branchGlobs(of: RepositoryName(parsing: "acme/widgets")!))
        #expect(globs.description == "acme/widgets@main, release/*" && globs.interval == .seconds(600) && globs.line == 2)
        #expect(globs.selection.selected(from: ["dev", "main", "release/1.0"]) == ["main", "release/1.0"])
        #expect(try MirrorConfiguration.parse(yaml: "repositories:\n  - acme/*\n", source: "cfg.yaml").patterns.first?.branches == nil)
    }

    @Test func globsAreListedOnEveryPollAndTheExactNamesBesideThemAreEntriesOfTheirOwn() throws {
        let configuration = try parse("    branches: [main, 'release/*', 'hotfix-*']\n    interval: 5m\n")
        #expect(configuration.repositories.map(\.description) == ["acme/widgets@main"])
        #expect(configuration.branchGlobs.map(\.description) == ["acme/widgets@release/*, hotfix-*"])
        let globs = try #require(configuration.branchGlobs.first)
        #expect(globs.interval == .seconds(300) && globs.line == 2)
        #expect(
            globs.selection.selected(from: ["main", "release/1.0", "release/5.10/hotfix", "hotfix-1", "dev"])
                == ["release/1.0", "release/5.10/hotfix", "hotfix-1"])
        #expect(
            globs.entry(for: "release/1.0")
                == MirrorConfiguration.Repository(
                    name: RepositoryName(parsing: "acme/widgets")!, branch: "release/1.0", interval: .seconds(300)))

        let every = try parse("    branches: '*'\n")
        #expect(every.repositories.isEmpty, "every branch: nothing to poll before the listing")
        #expect(every.branchGlobs.map(\.selection) == [.every])
    }

    @Test func globsOfOneRepositoryAreGivenOnceAndAReloadSaysWhatChanged() throws {
        #expect(
            message("    branches: ['release/*']\n  - name: Acme/Widgets\n    branches: ['*']\n")
                == "cfg.yaml:4: repositories[1]: branch globs of Acme/Widgets is listed twice (first on line 2); expected each repository and branch once"
        )
        // The same repository by exact names in one entry and globs in another is fine: the names keep their own entries.
        let split = try parse("    branches: ['release/*']\n  - name: acme/widgets\n    branches: [main]\n")
        #expect(split.repositories.map(\.description) == ["acme/widgets@main"])
        #expect(split.branchGlobs.count == 1)

        let before = try parse("    branches: ['release/*']\n")
        #expect(
            before.changes(to: try parse("    branches: ['release/*', 'v*']\n")) == [
                "branches of acme/widgets changed: release/* -> release/*, v*"
            ])
        #expect(
            before.changes(to: try parse("    branches: [main]\n")) == [
                "repository added: acme/widgets@main", "branches removed: acme/widgets@release/*",
            ])
        #expect(
            try parse("    branches: [main]\n").changes(to: before) == [
                "repository removed: acme/widgets@main", "branches added: acme/widgets@release/*",
            ])
        #expect(before.changes(to: before).isEmpty)
    }
}
