import Foundation
import GitHash
import MirrorTestSupport
import Synchronization
import Testing

@testable import MirrorCore

/// The git layer against real git: a repository built by git, served by
/// `git http-backend` over loopback HTTP, fetched through our libcurl client.
@Suite(.serialized) struct GitConformanceTests {
    let fixture: GitFixtureRepository
    let server: GitHTTPServer

    init() async throws {
        TestStoreDrivers.register()  // the pack index is the SQLite backend's
        fixture = try await GitFixtureRepository()
        server = try await GitHTTPServer(root: fixture.root, scratch: fixture.directory)
    }

    func fetch(
        cloneURL: String? = nil, credentials: GitCredentials? = nil, branch: String = "main",
        collected: DeliveredCommits = DeliveredCommits()
    ) async throws -> (GitHistoryFetcher.Result, [Commit]) {
        var configuration = GitHistoryFetcher.Configuration(cloneURL: cloneURL ?? server.baseURL + "/repo.git", credentials: credentials)
        configuration.temporaryDirectory = fixture.directory.url.path
        configuration.batchSize = 50
        configuration.htmlURLPrefix = "https://github.com/acme/repo"
        let fetcher = try GitHistoryFetcher(configuration: configuration, logger: TestSupport.quietLogger)
        let result = try await fetcher.fetchHistory(branch: branch) { batch in
            #expect(batch.count <= 50)
            collected.commits.withLock { $0 += batch }
        }
        return (result, collected.commits.withLock { $0 })
    }

    @Test func fetchedHistoryEqualsGitLog() async throws {
        let (result, commits) = try await fetch()
        let records = try await fixture.logRecords()
        #expect(records.count > 150)
        #expect(result.requests == 3)
        #expect(result.tip == records.first?.sha)
        #expect(result.commits == records.count)
        #expect(result.deltaObjects > 0, "the served pack should hold deltas")
        #expect(result.readWhileArriving, "the first pass should have run while the pack came")
        #expect(commits.count == records.count)
        let bySHA = Dictionary(uniqueKeysWithValues: commits.map { ($0.sha, $0) })
        // Parents come first: every prefix of what was delivered is a closed history.
        let position = Dictionary(uniqueKeysWithValues: commits.enumerated().map { ($1.sha, $0) })
        for (index, commit) in commits.enumerated() {
            #expect(commit.parents.allSatisfy { (position[$0] ?? .max) < index }, "\(commit.sha) before a parent")
        }
        for record in records {
            guard let commit = bySHA[record.sha] else {
                Issue.record("commit \(record.sha) not fetched")
                continue
            }
            var message = Substring(record.message)
            while message.last == "\n" { message.removeLast() }
            let expected = Commit(
                sha: record.sha, message: String(message),
                author: Signature(
                    identity: Identity(name: record.authorName, email: record.authorEmail),
                    date: Date(timeIntervalSince1970: TimeInterval(record.authorTime))),
                committer: Signature(
                    identity: Identity(name: record.committerName, email: record.committerEmail),
                    date: Date(timeIntervalSince1970: TimeInterval(record.committerTime))),
                parents: record.parents, treeSHA: record.tree, htmlURL: "https://github.com/acme/repo/commit/\(record.sha)")
            #expect(commit == expected)
        }
        // The cases the fixture was built for are really there.
        #expect(commits.contains { $0.parents.count == 4 })
        #expect(commits.filter { $0.parents.isEmpty }.count == 2)
        #expect(commits.contains { $0.author.identity.name == "José Müller" && $0.message == "Café crème\n\nNaïve body." })
        #expect(commits.contains { $0.message == "A signed commit\n\nIts signature spans continuation lines." })
        #expect(commits.first { $0.sha == result.tip }?.message == "No newline at the very end")
        #expect(server.receivedAuthorizations() == ["-", "-", "-"])
        // The spool file was unlinked as soon as it was made: nothing is left behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path)
        #expect(!leftovers.contains { $0.hasPrefix("commits-mirror-pack-") })
    }

    /// git's own pack of the repository, read object by object: every
    /// commit's fields, offsets included, equal git's, and every delta git
    /// wrote (as `git verify-pack` lists them) was resolved.
    @Test func gitsOwnPackReadsFieldForField() async throws {
        let pack = try fixture.packFile()
        let descriptor = open(pack, O_RDONLY | O_CLOEXEC)
        #expect(descriptor >= 0)
        var info = stat()
        fstat(descriptor, &info)
        let reader = try PackReader(storage: FilePackStorage(descriptor: descriptor, byteCount: Int(info.st_size)))
        try reader.verifyChecksum()
        var objects: [String: GitCommitObject] = [:]
        try reader.forEachObject { object in
            if object.type == .commit { objects[object.id.hex] = try GitCommitObject(parsing: object.body, id: object.id) }
        }
        let verify = try await fixture.git(["verify-pack", "-v", pack]).lines
        // "sha type size size-in-pack offset depth base-sha" for a delta.
        let gitDeltas = verify.filter { $0.split(separator: " ", omittingEmptySubsequences: true).count == 7 }.count
        #expect(gitDeltas > 50)
        #expect(reader.deltaCount == gitDeltas)
        for record in try await fixture.logRecords() {
            guard let object = objects[record.sha] else {
                Issue.record("commit \(record.sha) not in git's pack")
                continue
            }
            #expect(object.tree.hex == record.tree)
            #expect(object.parents.map(\.hex) == record.parents)
            #expect(
                object.author
                    == GitIdentityLine(
                        name: record.authorName, email: record.authorEmail, time: record.authorTime,
                        utcOffsetMinutes: GitLogRecord.minutes(record.authorOffset)))
            #expect(
                object.committer
                    == GitIdentityLine(
                        name: record.committerName, email: record.committerEmail, time: record.committerTime,
                        utcOffsetMinutes: GitLogRecord.minutes(record.committerOffset)))
            #expect(object.message == record.message)
        }
        #expect(objects.values.contains { $0.encoding == "ISO-8859-1" })
        #expect(Set(objects.values.map(\.author.utcOffsetMinutes)).isSuperset(of: [0, 330, -480, 765, -210, 840, -420]))
    }

    @Test func theTokenGoesToTheAPIsOwnLoopbackHost() async throws {
        let token = GitHubToken(value: "ghp_loopbacktoken", source: "test")
        let credentials = GitCredentials.forClone(url: server.baseURL + "/repo.git", apiURL: server.baseURL, token: token)
        #expect(credentials != nil)
        _ = try await fetch(credentials: credentials)
        let expected = "Basic " + Data("x-access-token:ghp_loopbacktoken".utf8).base64EncodedString()
        #expect(server.receivedAuthorizations() == [expected, expected, expected])
    }

    @Test func aCloneURLOnAnotherHostNeverReceivesTheToken() async throws {
        let token = GitHubToken(value: "ghp_mustnotleak", source: "test")
        // The API is GitHub; the clone URL is this loopback server: another host.
        let cloneURL = server.baseURL + "/repo.git"
        let credentials = GitCredentials.forClone(url: cloneURL, apiURL: "https://api.github.com", token: token)
        #expect(credentials == nil)
        let (result, _) = try await fetch(cloneURL: cloneURL, credentials: credentials)
        #expect(result.commits > 0)
        #expect(server.receivedAuthorizations() == ["-", "-", "-"])
        let log = try String(contentsOfFile: server.authorizationLog, encoding: .utf8)
        #expect(!log.contains(Data("x-access-token:ghp_mustnotleak".utf8).base64EncodedString()))
    }

    @Test func aRedirectToAnotherOriginIsRefused() async throws {
        let scratch = try TemporaryDirectory()
        var faults = GitHTTPServer.Faults()
        faults.redirectTo = server.baseURL
        let redirecting = try await GitHTTPServer(root: fixture.root, scratch: scratch, faults: faults)
        defer { redirecting.stop() }
        let token = GitHubToken(value: "ghp_staysput", source: "test")
        let cloneURL = redirecting.baseURL + "/repo.git"
        let credentials = GitCredentials.forClone(url: cloneURL, apiURL: redirecting.baseURL, token: token)
        await #expect {
            _ = try await fetch(cloneURL: cloneURL, credentials: credentials)
        } throws: { error in
            guard case GitError.redirectRefused = error else { return false }
            return true
        }
        #expect(server.receivedAuthorizations().isEmpty)
        #expect(redirecting.receivedAuthorizations().count == 1)
    }

    @Test func badInputIsRefusedBeforeAnyRequest() async throws {
        await #expect(throws: GitError.invalidBranchName("-rf", problem: "it starts with '-'")) {
            _ = try await fetch(branch: "-rf")
        }
        await #expect(throws: GitError.invalidCloneURL("ftp://127.0.0.1/repo.git")) {
            _ = try await fetch(cloneURL: "ftp://127.0.0.1/repo.git")
        }
        await #expect(throws: GitError.invalidCloneURL("https://127.0.0.1/repo.git")) {
            _ = try await fetch(cloneURL: "https://user:secret@127.0.0.1/repo.git")
        }
        #expect(server.receivedAuthorizations().isEmpty)
    }

    /// Cancelling the task stops the deliveries at the next batch.
    @Test func cancellingStopsTheDeliveries() async throws {
        var configuration = GitHistoryFetcher.Configuration(cloneURL: server.baseURL + "/repo.git", credentials: nil)
        configuration.temporaryDirectory = fixture.directory.url.path
        configuration.batchSize = 10
        let fetcher = try GitHistoryFetcher(configuration: configuration, logger: TestSupport.quietLogger)
        let firstBatch = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        let batches = Mutex(0)
        let task = Task {
            try await fetcher.fetchHistory(branch: "main") { _ in
                if batches.withLock({
                    $0 += 1; return $0
                }) == 1 {
                    firstBatch.signal()
                    cancelled.wait()
                }
            }
        }
        await onThread { firstBatch.wait() }
        task.cancel()
        cancelled.signal()
        await #expect(throws: GitError.cancelled) { _ = try await task.value }
        #expect(batches.withLock { $0 } == 1)
    }

    @Test func missingBranchAndRepositoryAreNamed() async throws {
        await #expect(throws: GitError.branchNotFound(branch: "no-such-branch")) {
            _ = try await fetch(branch: "no-such-branch")
        }
        await #expect {
            _ = try await fetch(cloneURL: server.baseURL + "/missing.git")
        } throws: { error in
            guard case GitError.repositoryNotFound = error else { return false }
            return true
        }
    }

    @Test func aServerWithoutFiltersIsRefusedBeforeAnyFetch() async throws {
        try await fixture.git(["config", "uploadpack.allowFilter", "false"])
        await #expect {
            _ = try await fetch()
        } throws: { error in
            guard case GitError.filterUnsupported = error else { return false }
            return true
        }
        #expect(server.receivedAuthorizations().count == 1)
    }

    /// Failures of the server side: each is named, and nothing is delivered.
    @Test(arguments: ["v0", "401", "truncated"])
    func serverFailuresAreNamedAndDeliverNothing(_ fault: String) async throws {
        var faults = GitHTTPServer.Faults()
        switch fault {
        case "v0": faults.protocolV0Only = true
        case "401": faults.requiredAuthorization = "Basic c29tZW9uZSBlbHNl"
        default: faults.truncatePack = true
        }
        let scratch = try TemporaryDirectory()
        let faulty = try await GitHTTPServer(root: fixture.root, scratch: scratch, faults: faults)
        defer { faulty.stop() }
        let delivered = DeliveredCommits()
        do {
            _ = try await fetch(cloneURL: faulty.baseURL + "/repo.git", collected: delivered)
            Issue.record("the \(fault) fetch succeeded")
        } catch let error as GitError {
            switch (fault, error) {
            case ("v0", .protocolV2Unsupported), ("401", .accessDenied(_, 401, false)), ("truncated", .malformedResponse): break
            default: Issue.record("\(fault): unexpected \(error)")
            }
        }
        #expect(delivered.commits.withLock { $0.isEmpty })
    }
}

/// What `deliver` was handed, kept even when the fetch then fails.
final class DeliveredCommits: Sendable {
    let commits = Mutex<[Commit]>([])
}
