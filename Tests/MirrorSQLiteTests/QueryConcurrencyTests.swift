import MirrorTestSupport
import Foundation
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// Issue #5 acceptance 5: queries run on a read-only connection while a sync
/// writes the same store; WAL readers neither wait nor see half a page.
@Suite struct QueryConcurrencyTests {
    /// Writes `pages` pages of `pageSize` "fix N" commits, newest last, one transaction each.
    static func writePages(path: String, pages: Range<Int>, pageSize: Int, pause: Duration = .zero) throws {
        let writer = try MirrorStore(path: path)
        for page in pages {
            let payloads = (0..<pageSize).map { offset -> CommitPayload in
                let n = page * pageSize + offset + 1
                return QueryFixtures.payload(
                    sha: QueryFixtures.sha(n), message: "fix \(n)\n\nwritten while readers read",
                    date: ISO8601Timestamp.format(Date(timeIntervalSince1970: 1_700_000_000 + Double(n) * 60)))
            }
            try QueryFixtures.fill(writer, payloads, repository: "o/r")
            if pause > .zero { Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18) }
        }
    }

    @Test func aReaderNeitherWaitsForNorSeesAnOpenWriteTransaction() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("commits.sqlite")
        try Self.writePages(path: path, pages: 0..<1, pageSize: 10)

        let writer = try MirrorStore(path: path)
        let repository = try #require(try writer.repository(named: RepositoryName(owner: "o", name: "r")))
        try writer.db.execute("BEGIN IMMEDIATE TRANSACTION")
        _ = try writer.upsert(
            [
                Commit(
                    QueryFixtures.payload(
                        sha: QueryFixtures.sha(999), message: "fix uncommitted",
                        date: "2030-01-01T00:00:00Z"))
            ], repositoryID: repository.id)

        let clock = ContinuousClock()
        let start = clock.now
        let reader = try MirrorReader(path: path)
        #expect(try reader.commits(matching: CommitFilter(grep: "fix")).count == 10)
        #expect(try reader.commits(matching: CommitFilter(grep: "uncommitted")).isEmpty)
        #expect(clock.now - start < .seconds(2), "the reader waited for the writer")

        try writer.db.execute("COMMIT TRANSACTION")
        #expect(try reader.commits(matching: CommitFilter(grep: "uncommitted")).count == 1)
        #expect(try reader.commits(matching: CommitFilter(grep: "fix", limit: 1)).first?.subject == "fix uncommitted")
    }

    @Test func queriesRunWhileAWriterCommitsPages() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("commits.sqlite")
        try Self.writePages(path: path, pages: 0..<1, pageSize: 100)
        let pages = 30, pageSize = 100

        // The writer gets its own thread, like the daemon's process: never the test's thread pool.
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var writerError: (any Error)?
        let writer = Thread {
            do {
                try Self.writePages(path: path, pages: 1..<pages, pageSize: pageSize, pause: .milliseconds(20))
            } catch {
                writerError = error
            }
            finished.signal()
        }
        writer.start()

        var observed: [Int] = []
        let reader = try MirrorReader(path: path)
        var writerDone = false
        repeat {
            writerDone = finished.wait(timeout: .now()) == .success
            // Each query reads one snapshot: whole pages only, in date order.
            let all = try reader.commits(matching: CommitFilter(grep: "fix"))
            #expect(all.count % pageSize == 0)
            #expect(all.map(\.committer.date) == all.map(\.committer.date).sorted(by: >))
            // A later query may see later pages, never fewer.
            let newest = try reader.commits(matching: CommitFilter(author: "ada", grep: "readers", limit: 5))
            #expect(newest.count == 5)
            #expect(newest.first!.committer.date >= all.first!.committer.date)
            observed.append(all.count)
        } while !writerDone
        #expect(writerError == nil)
        #expect(observed == observed.sorted(), "a later read saw fewer commits")
        #expect(observed.last == pages * pageSize)
        #expect(Set(observed).count > 2, "the reads did not overlap the writes: \(Set(observed).sorted())")
        #expect(try reader.integrityCheck() == "ok")
    }
}
