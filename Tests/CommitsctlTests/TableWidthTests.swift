import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore
@testable import MirrorSQLite
@testable import commitsctl
import SQLite

/// Tables fit the terminal by cutting the subject (then, only if nothing else
/// is left, the name), never the sha or the date; wide (CJK) characters count
/// two cells.
@Suite struct TableWidthTests {
    static func commit(_ index: Int, author: String, subject: String) -> CommitSummary {
        let sha = String(repeating: String(index % 10), count: 40)
        let person = CommitPerson(name: author, email: "p\(index)@example.com", login: nil, date: "2024-03-0\(index)T10:00:00Z")
        return CommitSummary(
            sha: sha, message: subject + "\n\nbody", url: nil, author: person, committer: person,
            parents: [], repositories: ["acme/widgets"])
    }

    static let commits = [
        commit(1, author: "山田 太郎", subject: "日本語のコミット: 幅の広い文字がたくさん並ぶ長い件名で、端末の幅を超えてしまうかもしれない"),
        commit(
            2, author: "Ada Lovelace", subject: "Teach the parser about nested generic parameter lists and report every ambiguity it finds"),
        commit(3, author: "Zoë Ünïcödé", subject: "Short"),
    ]

    @Test(arguments: [80, 120])
    func theSubjectIsCutToTheWidthAndTheIdentifiersAreWhole(width: Int) {
        let lines = CommitRendering.table(Self.commits, width: width)
        let whole = CommitRendering.table(Self.commits, width: nil)
        #expect(lines.count == Self.commits.count + 1)
        for line in lines { #expect(DisplayWidth.of(line) <= width, "\(line) is \(DisplayWidth.of(line)) cells wide") }
        #expect(whole.contains { DisplayWidth.of($0) > width }, "the fixture must need cutting at \(width)")
        for (line, commit) in zip(lines.dropFirst(), Self.commits) {
            #expect(line.hasPrefix("\(commit.sha.prefix(7))  \(commit.committer.date.prefix(10))  \(commit.author.name)"), "\(line)")
            let subjectStart = line.range(of: commit.author.name)!.upperBound
            let subject = line[subjectStart...].trimmingCharacters(in: .whitespaces)
            if subject.hasSuffix("…") {
                #expect(commit.subject.hasPrefix(String(subject.dropLast())), "\(subject)")
                // Cut no more than needed: one more cell would not fit (a wide character may leave one spare).
                #expect(DisplayWidth.of(line) >= width - 1, "\(line)")
            } else {
                #expect(subject == commit.subject)
            }
        }
    }

    @Test func aWideTableIsLeftWholeWhenItFits() {
        let short = [Self.commit(1, author: "山田 太郎", subject: "短い件名"), Self.commit(2, author: "Ada", subject: "Fix it")]
        #expect(CommitRendering.table(short, width: 120) == CommitRendering.table(short, width: nil))
        #expect(!CommitRendering.table(short, width: 120).joined().contains("…"))
    }

    @Test func theNameIsCutOnlyWhenTheSubjectHasNoRoomLeft() {
        let longName = Self.commit(
            1, author: "Bartholomew Aloysius Fitzgerald-Montgomery the Third", subject: "A subject long enough to cut")
        let lines = CommitRendering.table([longName], width: 60)
        for line in lines { #expect(DisplayWidth.of(line) <= 60, "\(line)") }
        let row = lines[1]
        #expect(row.hasPrefix("1111111  2024-03-01  Bartholomew"), "\(row)")
        // The subject keeps its floor (12 cells) before the name gives anything up.
        #expect(row.hasSuffix("  A subject l…"), "\(row)")
        #expect(!row.contains("the Third"))
    }

    @Test(arguments: [3, 4, 5, 6, 7])
    func cuttingWideTextNeverOverflows(width: Int) {
        let cut = DisplayWidth.truncate("幅の広い文字", to: width)
        #expect(DisplayWidth.of(cut) <= width)
        #expect(DisplayWidth.of(cut) >= width - 1)
        #expect(cut.hasSuffix("…"))
    }

    @Test func fixedColumnsAreNeverCut() {
        var table = TextTable([.init(title: "REPOSITORY"), .init(title: "LAST ERROR", flexible: true, minimumWidth: 12)])
        table.append(["acme/a-very-long-repository-name", String(repeating: "エラー", count: 20)])
        let row = table.render(width: 60)[1]
        #expect(row.hasPrefix("acme/a-very-long-repository-name  エラー"))
        #expect(DisplayWidth.of(row) <= 60)
    }

    @Test func countsArePlural() {
        #expect(plural(1, "request") == "1 request")
        #expect(plural(0, "request") == "0 requests")
        #expect(plural(2, "commit") == "2 commits")
        #expect(plural(1, "repository", "repositories") == "1 repository")
        #expect(plural(3, "repository", "repositories") == "3 repositories")
    }
}

/// `status`'s table: the error is cut first, then secondary columns are left
/// out; the repository, branch and dates stay whole.
@Suite struct StatusTableWidthTests {
    let directory: TemporaryDirectory
    let db: String

    init() throws {
        (directory, db) = try QueryCLIFixture.fresh("status.sqlite")
        let store = try MirrorStore(path: db)
        let widgets = try #require(try store.repository(named: RepositoryName(parsing: "acme/widgets")!))
        try store.recordFailure(
            repositoryID: widgets.id, branch: "main",
            message: "GitHub answered 502: サーバーが一時的に利用できません, and then the connection was reset by the peer",
            rateLimit: nil)
    }

    @Test(arguments: [80, 100, 120, 200])
    func theTableFitsAndKeepsItsIdentifiers(columns: Int) async throws {
        let result = try await commitsctl(["status", "--db", db], columns: columns)
        #expect(result.status == 0, "\(result.stderr)")
        let whole = try await commitsctl(["status", "--db", db]).lines
        let state = try await #require(
            try JSONSerialization.jsonObject(with: Data(try commitsctl(["status", "--format", "json", "--db", db]).stdout.utf8))
                as? [[String: Any]])
        for line in result.lines { #expect(DisplayWidth.of(line) <= columns, "\(line)") }
        if whole.allSatisfy({ DisplayWidth.of($0) <= columns }) { #expect(result.lines == whole) }
        let widgets = try #require(result.lines.first { $0.hasPrefix("acme/widgets ") })
        #expect(widgets.contains("  main  "))
        let success = try #require(state.first { $0["repository"] as? String == "acme/widgets" }?["last_success_at"] as? String)
        #expect(widgets.contains(success), "\(widgets)")
        #expect(widgets.hasSuffix("…") || widgets.hasSuffix("by the peer"), "\(widgets)")
        #expect(result.lines[0].contains("LAST ERROR"))
        // Secondary columns go, least useful first, only when needed.
        let header = result.lines[0]
        if header.contains("RATE LEFT") { #expect(header.contains("LAST ATTEMPT")) }
        if header.contains("LAST ATTEMPT") { #expect(header.contains("HEAD")) }
        #expect(header.contains("RATE LEFT") == (columns >= 120), "\(header)")
    }
}

/// `stats`'s table leaves out FIRST, then MERGES, before it cuts a repository's name.
@Suite struct StatsTableWidthTests {
    /// Held by the suite so that the store outlives every command the test runs on it.
    let directory: TemporaryDirectory
    let db: String

    init() throws { (directory, db) = try QueryCLIFixture.fresh("stats.sqlite") }

    @Test(arguments: [70, 80, 90, 120])
    func secondaryColumnsGoBeforeNames(columns: Int) async throws {
        let store = try MirrorStore(path: db)
        let evolution = try store.ensureRepository(named: RepositoryName(parsing: "swiftlang/swift-evolution")!)
        try store.db.transaction {
            _ = try store.upsert([MirrorCore.Commit(QueryCLIFixture.payload(QueryCLIFixture.commits[4]))], repositoryID: evolution.id)
        }
        let whole = try await commitsctl(["stats", "--db", db]).lines
        let result = try await commitsctl(["stats", "--db", db], columns: columns)
        #expect(result.status == 0, "\(result.stderr)")
        for line in result.lines { #expect(DisplayWidth.of(line) <= columns, "\(line)") }
        if whole.allSatisfy({ DisplayWidth.of($0) <= columns }) { #expect(result.lines == whole) }
        let header = result.lines[0]
        if !header.contains("MERGES") { #expect(!header.contains("FIRST"), "\(header)") }
        if result.lines.contains(where: { $0.contains("…") }) {
            #expect(!header.contains("MERGES") && !header.contains("FIRST"), "a name was cut first: \(result.stdout)")
        } else {
            #expect(result.lines.contains { $0.hasPrefix("swiftlang/swift-evolution ") })
        }
        #expect(header.hasPrefix("REPOSITORY") && header.contains("COMMITS") && header.contains("LAST SYNC"))
    }
}
