import MirrorTestSupport
import Foundation
import Testing

/// One output convention: every command that prints data takes
/// `--format table|oneline|json|ndjson|csv`, and the configuration's
/// `mailmap:` is used when `--mailmap` is not given.
@Suite struct OutputConventionTests {
    let directory: TemporaryDirectory
    let db: String

    init() throws {
        (directory, db) = try QueryCLIFixture.fresh("convention.sqlite")
    }

    func ndjson(_ arguments: [String]) async throws -> [[String: Any]] {
        let result = try await commitsctl(arguments + ["--format", "ndjson", "--db", db])
        #expect(result.status == 0, "\(result.stderr)")
        return try result.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test(arguments: [["query"], ["show", "bbbb"], ["authors"], ["stats"], ["status"]])
    func everyDataCommandTakesEveryFormat(command: [String]) async throws {
        let records = try await ndjson(command)
        #expect(!records.isEmpty)
        for format in ["table", "oneline", "json", "csv"] {
            let result = try await commitsctl(command + ["--format", format, "--db", db])
            #expect(result.status == 0, "\(format): \(result.stderr)")
            #expect(result.stderr == "")
            switch format {
            case "json":
                let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
                let objects = (parsed as? [[String: Any]]) ?? [(parsed as? [String: Any]) ?? [:]]
                #expect(objects.count == records.count)
                #expect(objects.map { Set($0.keys) } == records.map { Set($0.keys) })
            case "csv":
                let rows = result.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }
                #expect(rows.first?.split(separator: ",").count == records.first?.count, "\(rows.first ?? "")")
            case "table":
                #expect(result.lines.count == records.count + 1, "\(result.stdout)")
            default:
                #expect(result.lines.count == records.count, "\(result.stdout)")
            }
        }
    }

    @Test func onelineReportsSayTheirCountsInWords() async throws {
        let authors = try await commitsctl(["authors", "--format", "oneline", "--db", db]).lines
        for (line, person) in await zip(authors, try ndjson(["authors"])) {
            let commits = person["commits"] as! Int
            #expect(
                line.hasPrefix(String(repeating: " ", count: 6 - String(commits).count) + "\(commits)\t\(person["name"] as! String) <"),
                "\(line)")
        }
        let stats = try await commitsctl(["stats", "--format", "oneline", "--db", db]).lines
        for (line, repository) in await zip(stats, try ndjson(["stats"])) {
            let commits = repository["commits"] as! Int, merges = repository["merges"] as! Int
            #expect(
                line.hasPrefix(
                    "\(repository["repository"] as! String): \(commits) commit\(commits == 1 ? "" : "s"), \(merges) merge\(merges == 1 ? "" : "s"), "
                ), "\(line)")
        }
        let status = try await commitsctl(["status", "--format", "oneline", "--db", db]).lines
        for (line, row) in await zip(status, try ndjson(["status"])) {
            #expect(
                line.hasPrefix(
                    "\(row["repository"] as! String)@\(row["branch"] as? String ?? "(default)"): \(row["commits"] as! Int) commit"),
                "\(line)")
            let state = row["complete"] as! Bool ? "complete" : (row["pending_walks"] as! Int) > 0 ? "resuming" : "incomplete"
            #expect(line.contains(", \(state)"), "\(line)")
        }
        #expect(
            stats.contains { $0.contains(" 1 merge,") && $0.contains(" 0 merges,") == false },
            "the fixture's one merge is singular: \(stats)")
        #expect(stats.contains { $0.contains(": 1 commit,") }, "acme/fork's one commit is singular: \(stats)")
    }

    @Test func showPrintsTheSameFieldsInEveryMachineFormat() async throws {
        let json = try await commitsctl(["show", "aaaa2", "--format", "json", "--db", db]).stdout
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let line = try #require(try await ndjson(["show", "aaaa2"]).first)
        #expect(NSDictionary(dictionary: object) == NSDictionary(dictionary: line))
        let oneline = try await commitsctl(["show", "aaaa2", "--format", "oneline", "--db", db]).stdout
        let fromQuery = try await commitsctl(["query", "--format", "oneline", "--db", db]).lines
        #expect(fromQuery.contains(oneline.trimmingCharacters(in: .newlines)))
    }

    // MARK: - mailmap: in the configuration

    func configuration(mailmap: String) throws -> String {
        try directory.write("config.yaml", "store: convention.sqlite\nrepositories: [acme/widgets]\nmailmap: \(mailmap)\n")
    }

    @Test func theConfigurationsMailmapMergesPeopleUnlessTheFlagSaysOtherwise() async throws {
        // Mallory is Ada under another name and address.
        _ = try directory.write("people.mailmap", "Ada Lovelace <ada@example.com> Mallory <m@example.com>\n")
        let config = try configuration(mailmap: "people.mailmap")
        let alone = try await ndjson(["authors"]).first { $0["name"] as? String == "Ada Lovelace" }
        let merged = try await commitsctl(["authors", "--format", "ndjson", "--config", config])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(!merged.stdout.contains("\"Mallory\""))
        let ada = try #require(
            merged.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .first { $0["name"] as? String == "Ada Lovelace" })
        #expect(ada["commits"] as? Int == (alone?["commits"] as? Int ?? 0) + 1)

        let byMallory = try await commitsctl(["query", "--author", "Mallory", "--config", config]).lines
        let byAda = try await commitsctl(["query", "--author", "Ada", "--db", db]).lines
        #expect(byMallory.count == byAda.count + 1)
        let shown = try await commitsctl(["show", "cccc", "--format", "json", "--config", config]).stdout
        #expect(shown.contains("\"author_commit_count\": \(byMallory.count)"), "\(shown)")

        // --mailmap wins over the configuration's.
        let empty = try directory.write("empty.mailmap", "# nobody\n")
        let overridden = try await commitsctl(["query", "--author", "Mallory", "--config", config, "--mailmap", empty]).lines
        #expect(overridden.count == 1)
    }

    @Test func aMissingMailmapIsAConfigurationErrorNamingItsLine() async throws {
        let config = try configuration(mailmap: "gone.mailmap")
        for command in [["query"], ["authors"], ["show", "cccc"]] {
            let result = try await commitsctl(command + ["--config", config])
            #expect(result.status == 2)
            #expect(
                result.stderr.hasPrefix("commitsctl: error: \(config):3: mailmap: \(directory.path("gone.mailmap")) does not exist"),
                "\(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1)
            #expect(result.stdout == "")
        }
    }
}
