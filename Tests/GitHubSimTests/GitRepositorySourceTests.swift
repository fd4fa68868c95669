import Curl
import Foundation
import MirrorTestSupport
import Testing

@testable import GitHubSim

/// `RepositorySource.gitRepository`: a real repository made by the `git` binary, served over REST
/// and git's smart HTTP on loopback, agrees with `git rev-list` of that repository branch by branch.
@Suite struct GitRepositorySourceTests {
    static let emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

    /// A repository whose HEAD is `trunk`, with a merge, a diverging `feature/x`, an `orphan` branch
    /// with its own root, a `signed` branch whose tip has a multi-line `gpgsig` header, and a commit
    /// whose message has a body and trailing newlines.
    struct SourceRepository {
        let scratch: TemporaryDirectory
        let git: GitClient
        let path: String
        /// A clock for commit dates: each commit a minute later, offsets that are not UTC.
        private var time: Int64 = 1_700_000_000
        private var offsets = ["-0400", "+0530", "+0000", "+1245"]

        init() async throws {
            scratch = try TemporaryDirectory()
            git = GitClient(scratch: scratch)
            path = scratch.path("source")
            try GitRepositorySourceTests.check(await git.run(["init", "--quiet", "-b", "trunk", path]))
        }

        /// `git commit-tree` of the empty tree, dated by the clock.
        mutating func commit(_ message: String, parents: [String] = []) async throws -> String {
            time += 60
            offsets.append(offsets.removeFirst())
            let environment = git.environment.merging([
                "GIT_AUTHOR_NAME": "Ada Lovelace", "GIT_AUTHOR_EMAIL": "ada@example.com",
                "GIT_COMMITTER_NAME": "Grace Hopper", "GIT_COMMITTER_EMAIL": "grace@example.com",
                "GIT_AUTHOR_DATE": "\(time - 30) \(offsets[1])", "GIT_COMMITTER_DATE": "\(time) \(offsets[0])",
            ]) { _, new in new }
            let arguments =
                ["-C", path, "commit-tree", GitRepositorySourceTests.emptyTree, "-m", message] + parents.flatMap { ["-p", $0] }
            let result = try await runProgram("/usr/bin/git", arguments, environment: environment)
            try GitRepositorySourceTests.check(result)
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func setBranch(_ name: String, _ sha: String) async throws {
            try GitRepositorySourceTests.check(await git.run(["update-ref", "refs/heads/\(name)", sha], in: path))
        }

        /// A commit with a `gpgsig` header (its continuation lines start with a space) and an
        /// `encoding` header, written with `git hash-object`, as `commit-tree` writes none.
        mutating func signedCommit(parent: String) async throws -> String {
            time += 60
            let object = """
                tree \(GitRepositorySourceTests.emptyTree)
                parent \(parent)
                author Ada Lovelace <ada@example.com> \(time) -0700
                committer Grace Hopper <grace@example.com> \(time) +0900
                encoding UTF-8
                gpgsig -----BEGIN PGP SIGNATURE-----
                 iQEzBAABCAAdFiEEnotarealsignaturebutshapedlikeone
                 =abcd
                 -----END PGP SIGNATURE-----

                Signed release

                Body of the signed commit.

                """
            let file = try scratch.write("signed-object", object)
            let result = try await git.run(["hash-object", "-t", "commit", "-w", file], in: path)
            try GitRepositorySourceTests.check(result)
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// `git rev-list ARGUMENTS` of the source.
        func revList(_ arguments: [String]) async throws -> [String] {
            let result = try await git.run(["rev-list"] + arguments, in: path)
            try GitRepositorySourceTests.check(result)
            return result.lines
        }

        /// Every branch's head, by name.
        func branchHeads(in repository: String? = nil) async throws -> [String: String] {
            let result = try await git.run(
                ["for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads"], in: repository ?? path)
            try GitRepositorySourceTests.check(result)
            return Dictionary(
                uniqueKeysWithValues: result.lines.map { line in
                    let fields = line.split(separator: " ")
                    return (String(fields[0]), String(fields[1]))
                })
        }
    }

    static func check(_ result: ProcessResult) throws {
        guard result.status == 0 else { throw GitTestError(description: result.stderr) }
    }

    /// The repository described on `SourceRepository`, with the shas of its multi-line and signed commits.
    static func makeSource() async throws -> (SourceRepository, multiLine: String, signed: String) {
        var source = try await SourceRepository()
        var trunk = try await source.commit("Root commit")
        var trunkCommits: [String] = [trunk]
        for index in 1...24 {
            trunk = try await source.commit("Trunk change \(index)", parents: [trunk])
            trunkCommits.append(trunk)
        }
        var feature = try await source.commit("Feature start", parents: [trunkCommits[5]])
        feature = try await source.commit("Feature work", parents: [feature])
        trunk = try await source.commit("Merge branch 'feature/x'", parents: [trunk, feature])
        let multiLine = try await source.commit("Subject line\n\nBody line one.\nBody line two.\n\n\n", parents: [trunk])
        trunk = try await source.commit("After the merge", parents: [multiLine])
        feature = try await source.commit("Feature goes on after the merge", parents: [feature])
        var orphan = try await source.commit("Orphan root")
        orphan = try await source.commit("Orphan second", parents: [orphan])
        let signed = try await source.signedCommit(parent: trunkCommits[20])
        try await source.setBranch("trunk", trunk)
        try await source.setBranch("feature/x", feature)
        try await source.setBranch("orphan", orphan)
        try await source.setBranch("signed", signed)
        return (source, multiLine, signed)
    }

    static func started(_ path: String) async throws -> GitHubSimulator {
        let simulator = try GitHubSimulator(repositories: [
            SimRepository(owner: "o", name: "r", id: 9, source: .gitRepository(path: path))
        ])
        try await simulator.start()
        return simulator
    }

    static func get(_ url: String) async throws -> HTTPResponse {
        try await HTTPClient().send(
            HTTPRequest(
                url: url,
                headers: [("Authorization", "Bearer t"), ("Accept", "application/vnd.github+json"), ("User-Agent", "git-repository-tests")])
        )
    }

    /// Every element of `/repos/o/r/commits?sha=BRANCH`, following the `next` links.
    static func listing(_ simulator: GitHubSimulator, branch: String) async throws -> [[String: Any]] {
        var url: String? = "\(simulator.baseURL)/repos/o/r/commits?sha=\(branch)&per_page=7"
        var elements: [[String: Any]] = []
        while let next = url {
            let response = try await get(next)
            #expect(response.status == 200)
            elements += try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
            url = response.headers["link"].flatMap { header in
                header.split(separator: ",").first { $0.contains("rel=\"next\"") }.map { part in
                    String(part.drop { $0 != "<" }.dropFirst().prefix { $0 != ">" })
                }
            }
        }
        return elements
    }

    @Test func everyBranchListsExactlyWhatGitRevListSaysWithUTCDatesAndStrippedMessages() async throws {
        let (source, multiLine, signed) = try await Self.makeSource()
        let objects = try await source.git.commitObjects(in: source.path)
        let heads = try await source.branchHeads()
        #expect(heads.count == 4)
        try await withRunning(try await Self.started(source.path)) { simulator async throws in
            let repository = try await Self.get("\(simulator.baseURL)/repos/o/r")
            let description = try #require(try JSONSerialization.jsonObject(with: Data(repository.body)) as? [String: Any])
            #expect(description["default_branch"] as? String == "trunk", "the default branch is the one HEAD names")

            let branches = try await Self.get("\(simulator.baseURL)/repos/o/r/branches")
            let listed = try #require(try JSONSerialization.jsonObject(with: Data(branches.body)) as? [[String: Any]])
            var served: [String: String] = [:]
            for branch in listed {
                served[try #require(branch["name"] as? String)] = (branch["commit"] as? [String: Any])?["sha"] as? String
            }
            #expect(served == heads)

            var seen: Set<String> = []
            for (branch, head) in heads {
                let expected = try await source.revList([head])
                let elements = try await Self.listing(simulator, branch: branch)
                let shas = elements.compactMap { $0["sha"] as? String }
                #expect(shas.first == head, "\(branch) starts at its head")
                #expect(shas.count == expected.count && Set(shas) == Set(expected), "\(branch): \(shas.count) vs \(expected.count)")
                for element in elements {
                    let sha = try #require(element["sha"] as? String)
                    let object = try #require(objects[sha])
                    let commit = try #require(element["commit"] as? [String: Any])
                    let committer = try #require(commit["committer"] as? [String: String])
                    let author = try #require(commit["author"] as? [String: String])
                    #expect(committer["date"] == Timestamp.iso8601UTC(object.committer.time) && committer["date"]?.hasSuffix("Z") == true)
                    #expect(author["date"] == Timestamp.iso8601UTC(object.author.time) && author["name"] == "Ada Lovelace")
                    #expect((element["parents"] as? [[String: Any]])?.compactMap { $0["sha"] as? String } == object.parents)
                    var message = Substring(object.message)
                    while message.hasSuffix("\n") { message.removeLast() }
                    #expect(commit["message"] as? String == String(message))
                    seen.insert(sha)
                }
            }
            let everyCommit = try await source.revList(["--branches"])
            #expect(seen == Set(everyCommit))
            let trunk = try await Self.listing(simulator, branch: "trunk")
            let multiLineElement = try #require(trunk.first { $0["sha"] as? String == multiLine })
            #expect(
                (multiLineElement["commit"] as? [String: Any])?["message"] as? String == "Subject line\n\nBody line one.\nBody line two.")
            let signedListing = try await Self.listing(simulator, branch: "signed")
            let signedElement = try #require(signedListing.first)
            #expect(signedElement["sha"] as? String == signed)
            #expect(
                (signedElement["commit"] as? [String: Any])?["message"] as? String == "Signed release\n\nBody of the signed commit.")
            let orphan = try await Self.listing(simulator, branch: "orphan")
            #expect(orphan.count == 2 && (orphan.last?["parents"] as? [Any])?.isEmpty == true, "the orphan branch has its own root")
        }
    }

    @Test func aCommitsOnlyCloneOfTheSimulatorHasEveryBranchWithTheSourcesShas() async throws {
        let (source, _, signed) = try await Self.makeSource()
        // A bare repository serves alike.
        let bare = source.scratch.path("source.git")
        try Self.check(try await source.git.run(["clone", "--quiet", "--bare", source.path, bare]))
        try await withRunning(try await Self.started(bare)) { simulator async throws in
            let clone = source.scratch.path("clone.git")
            let cloned = try await source.git.run([
                "clone", "--quiet", "--bare", "--filter=tree:0", simulator.baseURL + "/o/r.git", clone,
            ])
            #expect(cloned.status == 0, "\(cloned.stderr)")
            let sourceHeads = try await source.branchHeads()
            #expect(try await source.branchHeads(in: clone) == sourceHeads && sourceHeads.count == 4)
            let all = try await source.git.run(["rev-list", "--all"], in: clone)
            let everyCommit = try await source.revList(["--branches"])
            #expect(all.lines.count == everyCommit.count && Set(all.lines) == Set(everyCommit) && everyCommit.count > 30)
            #expect(try await source.git.run(["symbolic-ref", "HEAD"], in: clone).stdout == "refs/heads/trunk\n")
            // The signed commit's bytes are the source's, header for header.
            let original = try await source.git.run(["cat-file", "commit", signed], in: source.path)
            let fetched = try await source.git.run(["cat-file", "commit", signed], in: clone)
            #expect(fetched.status == 0 && fetched.stdout == original.stdout && fetched.stdout.contains("gpgsig "))

            // One branch alone: the pack holds exactly what that branch reaches.
            let single = source.scratch.path("feature.git")
            let fetchedOne = try await source.git.run([
                "clone", "--quiet", "--bare", "--filter=tree:0", "--single-branch", "--branch", "feature/x",
                simulator.baseURL + "/o/r.git", single,
            ])
            #expect(fetchedOne.status == 0, "\(fetchedOne.stderr)")
            let feature = try await source.git.run(["rev-list", "--all"], in: single)
            let expected = try await source.revList(["feature/x"])
            #expect(feature.lines.count == expected.count && Set(feature.lines) == Set(expected))
        }
    }

    @Test func whatCannotBeServedIsRefusedWithAnErrorNamingThePath() async throws {
        let scratch = try TemporaryDirectory()
        let git = GitClient(scratch: scratch)
        func failure(_ path: String) -> String? {
            do {
                _ = try GitHubSimulator(repositories: [SimRepository(owner: "o", name: "r", id: 1, source: .gitRepository(path: path))])
                return nil
            } catch {
                return "\(error)"
            }
        }
        let missing = scratch.path("missing")
        #expect(failure(missing) == "git repository \(missing): no such directory")

        let plain = scratch.path("plain")
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        let notARepository = try #require(failure(plain))
        #expect(
            notARepository.hasPrefix("git repository \(plain): ") && notARepository.contains("not a git repository"), "\(notARepository)")

        let empty = scratch.path("empty")
        try Self.check(try await git.run(["init", "--quiet", "-b", "main", empty]))
        #expect(failure(empty) == "git repository \(empty): no branches (refs/heads is empty)")

        // A branch at a blob: git refuses to write one, so the ref file is written directly.
        let blob = try await git.run(["hash-object", "-w", "--stdin"], in: empty)
        try Self.check(blob)
        let sha = blob.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try Data("\(sha)\n".utf8).write(to: URL(fileURLWithPath: empty + "/.git/refs/heads/main"))
        #expect(failure(empty) == "git repository \(empty): branch main points at a blob (\(sha)), not a commit")
    }
}
