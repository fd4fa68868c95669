import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore

/// Configuration files that could hang, exhaust or flood: FIFOs, devices,
/// huge files, alias bombs, huge values in messages, and bad branch names.
@Suite struct ConfigurationHardeningTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    static let aliasBomb = aliasBombConfiguration

    func loadMessage(_ path: String) -> String? {
        do {
            _ = try MirrorConfiguration.load(contentsOf: path)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func theAliasBombIsRefusedQuicklyAndBriefly() async throws {
        let path = try directory.write("bomb.yaml", Self.aliasBomb)
        #expect(Self.aliasBomb.utf8.count < 400)
        // Timed on the loading thread itself, so a busy test run's thread start-up does not count.
        let outcome = await withDeadline(.seconds(10)) { () -> (String?, Duration) in
            let clock = ContinuousClock()
            let start = clock.now
            let message = loadMessageFor(path)
            return (message, clock.now - start)
        }
        let (message, elapsed) = try #require(outcome, "refused within the deadline")
        let text = try #require(message)
        #expect(elapsed < .seconds(10), "took \(elapsed) (unrefused, this bomb takes about 90 s)")
        #expect(
            text
                == "\(path):2:8: uses the alias *a; aliases (*name) are not allowed in configuration files; expected every value written out in full"
        )
        #expect(!text.contains("\n"))
    }

    @Test(arguments: [
        ("store: &s /tmp/x.sqlite\nrepositories: [acme/widgets]\napi_url: *s\n", 3, 10),
        ("repositories:\n  - &r acme/widgets\n  - name: *r\n    branch: dev\n", 3, 11),
        ("repositories: [acme/widgets]\n<<: *m\n", 2, 5),
    ])
    func anyAliasIsRefusedWithItsPosition(yaml: String, line: Int, column: Int) {
        #expect(throws: ConfigurationError.self) { try MirrorConfiguration.parse(yaml: yaml, source: "cfg.yaml") }
        do {
            _ = try MirrorConfiguration.parse(yaml: yaml, source: "cfg.yaml")
        } catch let error as ConfigurationError {
            #expect(error.line == line && error.column == column, "\(error)")
            #expect(error.problem.contains("aliases (*name) are not allowed"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test(arguments: [
        "repositories: [acme/widgets]\n# a comment with *star and &amp\n",
        "repositories: [acme/widgets]\napi_url: 'https://x.example/*a'\n",
        "store: \"*not-an-alias\"\nrepositories: [acme/widgets]\n",
        "repositories: [acme/widgets] # *a\n",
        "store: a*b\nrepositories: [acme/widgets]\n",
        "store: &anchor /tmp/x.sqlite\nrepositories: [acme/widgets]\n",
    ])
    func starsThatAreNotAliasesAreFine(yaml: String) throws {
        let configuration = try MirrorConfiguration.parse(yaml: yaml, source: "cfg.yaml")
        #expect(configuration.repositories.map(\.name.description) == ["acme/widgets"])
    }

    @Test func aNormalFileStillLoads() throws {
        let path = try directory.write(
            "ok.yaml",
            """
            store: data/commits.sqlite
            repositories:
              - acme/widgets
              - name: acme/gadgets
                branch: release/1.0
                interval: 5m
            """)
        let configuration = try MirrorConfiguration.load(contentsOf: path)
        #expect(configuration.repositories.map(\.description) == ["acme/widgets", "acme/gadgets@release/1.0"])
        #expect(configuration.store == directory.path("data/commits.sqlite"))
    }

    @Test func aFileOverOneMebibyteIsRefusedBySize() throws {
        let padding = String(repeating: "# padding line to make the file large\n", count: (2 << 20) / 38 + 1)
        let path = try directory.write("big.yaml", "repositories: [acme/widgets]\n" + padding)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int >= 2 << 20)
        #expect(
            loadMessage(path)
                == "\(path): the file is larger than 1 MiB; expected a configuration file like config/commits-mirror.example.yaml")
        // Just under the limit is read.
        let under = try directory.write(
            "under.yaml",
            "repositories: [acme/widgets]\n"
                + String(repeating: "#", count: MirrorConfiguration.maximumSize - 40) + "\n")
        #expect(loadMessage(under) == nil)
    }

    @Test func aFIFOIsRefusedWithoutOpeningIt() async throws {
        let path = directory.path("config.fifo")
        try makeFIFO(path)
        let message = await withDeadline(.seconds(5), unblock: { releaseFIFOReader(path) }) { loadMessageFor(path) }
        #expect(
            message
                == .some(
                    "\(path): is a FIFO (named pipe), not a configuration file; expected a readable YAML file like config/commits-mirror.example.yaml"
                ))
    }

    @Test(arguments: [("/dev/null", "a character device"), ("/tmp", "a directory")])
    func devicesAndDirectoriesAreRefused(path: String, kind: String) {
        #expect(
            loadMessage(path)
                == "\(path): is \(kind), not a configuration file; expected a readable YAML file like config/commits-mirror.example.yaml")
    }

    @Test func anEmptyPathIsRefused() {
        #expect(loadMessage("") == "the configuration path is empty; expected a readable YAML file like config/commits-mirror.example.yaml")
    }

    @Test(arguments: [
        "api_url: \(String(repeating: "z", count: 5000))\nrepositories: [acme/widgets]\n",
        "repositories: [acme/widgets]\n? [\(Array(repeating: "long-key-element", count: 400).joined(separator: ", "))]\n: 1\n",
        "repositories:\n  - \(String(repeating: "q", count: 5000))\n",
        "log_level: \"\(String(repeating: "\\n", count: 3000))\"\nrepositories: [acme/widgets]\n",
    ])
    func messagesQuoteOnlyAShortExcerpt(yaml: String) {
        do {
            _ = try MirrorConfiguration.parse(yaml: yaml, source: "cfg.yaml")
            Issue.record("accepted")
        } catch {
            let text = "\(error)"
            #expect(text.count < 400, "\(text.count) characters")
            #expect(!text.contains("\n"))
        }
    }

    @Test(arguments: ["..", "a..b", ".hidden", "x.lock", "a b", "a~1", "-x", "a//b", "@", "x/"])
    func badBranchesAreRefusedWithTheirLine(branch: String) {
        let yaml = "repositories:\n  - name: acme/widgets\n    branch: '\(branch)'\n"
        #expect(throws: ConfigurationError.self) { try MirrorConfiguration.parse(yaml: yaml, source: "cfg.yaml") }
        do {
            _ = try MirrorConfiguration.parse(yaml: yaml, source: "cfg.yaml")
        } catch {
            #expect("\(error)".hasPrefix("cfg.yaml:3: repositories[0].branch: '\(branch)' is not a valid branch name: "), "\(error)")
            #expect("\(error)".hasSuffix("; expected a git branch name such as main or release/1.0"))
        }
    }
}

/// Outside the suite so the closure handed to another thread captures nothing of it.
private func loadMessageFor(_ path: String) -> String? {
    do {
        _ = try MirrorConfiguration.load(contentsOf: path)
        return nil
    } catch {
        return "\(error)"
    }
}
