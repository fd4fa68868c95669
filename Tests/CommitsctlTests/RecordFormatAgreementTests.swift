import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore
@testable import MirrorSQLite
import SQLite

/// Issue #26, acceptance 6: one writer prints json, ndjson and csv for every
/// command, so the three formats of a command hold the same rows: the same
/// field names in the same order, and the same values (null stays null,
/// numbers stay numbers).
@Suite struct RecordFormatAgreementTests {
    let directory: TemporaryDirectory
    let db: String

    /// A commit crediting co-authors, so `show` has nested objects to write.
    static let coAuthored = QueryCLIFixture.Commit(
        sha: "eeee666666666666666666666666666666666666",
        message:
            "Add the co-author list\n\nCo-authored-by: Grace Hopper <grace@example.com>\nCo-authored-by: Zoë Ünïcödé <zoe@example.com>",
        author: QueryCLIFixture.ada, committer: nil, date: "2024-03-06T10:00:00Z", authorDate: nil,
        parents: [QueryCLIFixture.shaA1], repositories: ["acme/widgets"])

    init() throws {
        (directory, db) = try QueryCLIFixture.fresh("formats.sqlite")
        try Self.addWhatTheFixtureLacks(to: db)
    }

    /// Values each format must carry over beyond the query fixture's: a
    /// co-authored commit, a GitHub id, a gone repository, an error holding a
    /// comma, quotes and a line break, and requests spent by two tokens (one
    /// named with a comma and quotes).
    static func addWhatTheFixtureLacks(to path: String) throws {
        let store = try MirrorStore(path: path)
        let widgetsName = RepositoryName(parsing: "acme/widgets")!
        let widgets = try store.adopt(
            .init(githubID: 4242, fullName: widgetsName, defaultBranch: "main", htmlURL: nil), requestedAs: widgetsName)
        try store.db.transaction {
            _ = try store.upsert([QueryCLIFixture.payload(coAuthored)].map(MirrorCore.Commit.init), repositoryID: widgets.id)
        }
        try store.recordFailure(
            repositoryID: widgets.id, branch: "main", message: "GitHub answered 502, \"bad gateway\"\nthen the peer reset",
            rateLimit: RateLimitStatus(limit: 5000, remaining: 4321))
        let fork = try store.repository(named: RepositoryName(parsing: "acme/fork")!)!
        try store.setState(.gone, repositoryID: fork.id, reason: "GitHub answers 404 for it")
        try store.recordRequests(
            [.poll: RequestTally(requests: 12, notModified: 11, points: 1), .page: RequestTally(requests: 3, points: 3)],
            token: "environment variable GITHUB_TOKEN")
        try store.recordRequests(
            [.repositoryLookup: RequestTally(requests: 1, points: 1)], token: "file /etc/token, \"the spare\"")
    }

    func output(_ command: [String], _ format: String) async throws -> String {
        let result = try await commitsctl(command + ["--format", format, "--db", db])
        #expect(result.status == 0, "\(command) --format \(format): \(result.stderr)")
        #expect(result.stderr == "")
        return result.stdout
    }

    @Test(arguments: [
        ["query"], ["show", String(coAuthored.sha.prefix(8))], ["authors"], ["stats"], ["status"], ["status", "--requests"],
        ["repos"],
    ])
    func jsonNDJSONAndCSVHoldTheSameRows(command: [String]) async throws {
        let json = try await output(command, "json")
        let ndjson = try await output(command, "ndjson")
        let csv = try await output(command, "csv")

        // `show` prints its one commit as one object; every report prints an array.
        let jsonRows: [ParsedJSON]
        switch try ParsedJSON.parse(json) {
        case .array(let rows): jsonRows = rows
        case let object: jsonRows = [object]
        }
        let ndjsonLines = ndjson.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(ndjson.hasSuffix("\n"))
        let ndjsonRows = try ndjsonLines.map(ParsedJSON.parse)
        #expect(!jsonRows.isEmpty, "the fixture gives every command rows to print")
        #expect(jsonRows == ndjsonRows)

        let table = try CSVReading.rows(csv)
        let header = try #require(table.first)
        let csvRows = table.dropFirst()
        #expect(csvRows.count == jsonRows.count)
        for (cells, row) in zip(csvRows, jsonRows) {
            guard case .object(let fields) = row else {
                Issue.record("not an object: \(row)")
                continue
            }
            #expect(header.count == fields.count && Set(header) == Set(fields.keys), "\(header) vs \(fields.keys.sorted())")
            #expect(cells.count == header.count)
            for (name, cell) in zip(header, cells) {
                let value = try #require(fields[name], "\(name)")
                #expect(value.isWritten(asCSV: cell), "\(name): csv \(cell.debugDescription), json \(value)")
            }
        }

        // The key order is the header's in both JSON forms. A key is found by its first
        // `"name":`, which comes before any nested object's keys (co_authors is last).
        for line in ndjsonLines {
            let positions = header.map { line.range(of: "\"\($0)\":")?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil } && positions.map { $0! } == positions.map { $0! }.sorted(), "\(line)")
        }
        let objects = json.components(separatedBy: "\n  {").dropFirst()
        for object in command.first == "show" ? [json] : Array(objects) {
            let positions = header.map { object.range(of: "\"\($0)\": ")?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil } && positions.map { $0! } == positions.map { $0! }.sorted(), "\(object)")
        }
    }

    /// The fixture reaches every kind of value the formats must agree on.
    @Test func theFixtureHoldsNullsNumbersBooleansAndNestedObjects() async throws {
        guard case .array(let status) = try ParsedJSON.parse(try await output(["status"], "json")) else {
            Issue.record("status --format json is not an array")
            return
        }
        let values = status.flatMap { row -> [ParsedJSON] in
            guard case .object(let fields) = row else { return [] }
            return Array(fields.values)
        }
        #expect(values.contains(.null))
        #expect(values.contains(.bool(true)) && values.contains(.bool(false)))
        #expect(values.contains(.int(4321)))
        #expect(values.contains(.string("GitHub answered 502, \"bad gateway\"\nthen the peer reset")))
        let show = try ParsedJSON.parse(try await output(["show", String(Self.coAuthored.sha.prefix(8))], "json"))
        guard case .object(let fields) = show, case .array(let coAuthors) = fields["co_authors"] else {
            Issue.record("show has no co_authors array: \(show)")
            return
        }
        #expect(coAuthors.count == 2)
        let repos = try ParsedJSON.parse(try await output(["repos"], "json"))
        #expect(repos.description.contains("github_id: 4242"), "\(repos)")
    }
}
