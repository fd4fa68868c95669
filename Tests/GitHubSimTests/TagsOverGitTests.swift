import Curl
import Foundation
import MirrorTestSupport
import Testing

@testable import GitHubSim

/// Tags over git's smart HTTP against the real git client: `git ls-remote` sees every tag with its
/// peeled commit, a clone gets the annotated tag objects with git's own ids, and tags moved or
/// deleted at run time are seen as such.
@Suite struct TagsOverGitTests {
    static let alamofireBundle = PackagePaths.shared.appendingPathComponent("datasets/alamofire.bundle").path
    static var hasBundle: Bool { FileManager.default.fileExists(atPath: alamofireBundle) }

    static func taggedSynthetic(commits: Int = 240, tagEvery: Int = 10) -> SimRepository {
        SimRepository(
            owner: "acme", name: "widgets", id: 7,
            source: .synthetic(SyntheticSpec(commits: commits, mergeEvery: 4, seed: 5, tagEvery: tagEvery)))
    }

    /// `git ls-remote URL` as `[refname: sha]`, `^{}` lines kept as their own names.
    static func lsRemote(_ git: GitClient, _ url: String, _ patterns: [String] = []) async throws -> [String: String] {
        let listed = try await git.run(["ls-remote", url] + patterns)
        #expect(listed.status == 0, "\(listed.stderr)")
        var refs: [String: String] = [:]
        for line in listed.lines {
            let fields = line.split(separator: "\t")
            if fields.count == 2 { refs[String(fields[1])] = String(fields[0]) }
        }
        return refs
    }

    /// Every tag of a repository as `refname objectname peeled`, as `git for-each-ref` prints them.
    static func tagRefs(_ git: GitClient, in repository: String) async throws -> [String] {
        let listed = try await git.run(
            ["for-each-ref", "--format=%(refname) %(objectname) %(objecttype) %(*objectname)", "refs/tags"], in: repository)
        #expect(listed.status == 0, "\(listed.stderr)")
        return listed.lines
    }

    @Test func lsRemoteShowsEveryTagPeeledAndACloneHoldsTagObjectsWithGitsIDs() async throws {
        let simulator = try await GitServingTests.started([Self.taggedSynthetic()])
        try await withRunning(simulator) { simulator async throws in
            let scratch = try TemporaryDirectory()
            let git = GitClient(scratch: scratch)
            let url = simulator.baseURL + "/acme/widgets.git"
            let refs = try await Self.lsRemote(git, url)
            let tagNames = refs.keys.filter { $0.hasPrefix("refs/tags/") && !$0.hasSuffix("^{}") }
            // 23 release tags (commit 10·k for k < 24), every fourth with a side tag.
            #expect(tagNames.count == 23 + 5)
            #expect(refs.keys.filter { $0.hasSuffix("^{}") }.count == 7)
            #expect(refs["refs/tags/v1.3.0^{}"] != nil && refs["refs/tags/v1.1.0^{}"] == nil)

            let clone = scratch.path("widgets.git")
            let cloned = try await git.run(["clone", "--quiet", "--bare", "--filter=tree:0", url, clone])
            #expect(cloned.status == 0, "\(cloned.stderr)")
            let lines = try await Self.tagRefs(git, in: clone)
            #expect(lines.count == tagNames.count)
            for line in lines {
                let fields = line.split(separator: " ").map(String.init)
                #expect(refs[fields[0]] == fields[1], "\(line)")
                guard fields[2] == "tag" else {
                    #expect(fields[2] == "commit" && fields.count == 3)
                    continue
                }
                #expect(refs[fields[0] + "^{}"] == fields[3], "\(line)")
                // git hashes the object it received (and checks its format) to the id the simulator gave it.
                let body = scratch.path("tag-body")
                let shown = try await runProgram(
                    "/bin/sh", ["-c", "git -C '\(clone)' cat-file tag \(fields[1]) > '\(body)'"], environment: git.environment)
                #expect(shown.status == 0)
                let hashed = try await git.run(["hash-object", "-t", "tag", body])
                #expect(hashed.stdout == fields[1] + "\n", "\(hashed.stderr)")
            }
            let fsck = try await git.run(["fsck", "--connectivity-only", "--no-dangling"], in: clone)
            #expect(fsck.status == 0, "\(fsck.stderr)")
        }
    }

    @Test func lsRefsHonoursRefPrefixAndPeel() async throws {
        let simulator = try await GitServingTests.started([Self.taggedSynthetic()])
        try await withRunning(simulator) { simulator async throws in
            func lsRefs(_ arguments: [String]) async throws -> [String] {
                var body: [UInt8] = []
                func line(_ text: String) { body += Array(Hex.string(UInt64(text.utf8.count + 4), width: 4).utf8) + Array(text.utf8) }
                line("command=ls-refs\n")
                body += Array("0001".utf8)
                for argument in arguments { line(argument + "\n") }
                body += Array("0000".utf8)
                let response = try await HTTPClient().send(
                    HTTPRequest(
                        url: simulator.baseURL + "/acme/widgets.git/git-upload-pack", method: "POST",
                        headers: [("Git-Protocol", "version=2"), ("Content-Type", "application/x-git-upload-pack-request")], body: body))
                #expect(response.status == 200)
                return String(decoding: response.body, as: UTF8.self).split(separator: "\n").map { String($0.dropFirst(4)) }
                    .filter { !$0.isEmpty && $0 != "0" }
            }
            let tagged = try await lsRefs(["peel", "ref-prefix refs/tags/v1.3"])
            #expect(tagged.count == 1 && tagged[0].contains(" refs/tags/v1.3.0 peeled:"))
            let unpeeled = try await lsRefs(["ref-prefix refs/tags/v1.3", "ref-prefix refs/heads/"])
            #expect(unpeeled.count == 2 && unpeeled.allSatisfy { !$0.contains("peeled:") })
            #expect(try await lsRefs(["ref-prefix refs/tags/nothing"]).isEmpty)
        }
    }

    @Test func tagsMovedAddedAndDeletedAtRunTimeAreWhatLsRemoteSees() async throws {
        let simulator = try await GitServingTests.started([Self.taggedSynthetic()])
        try await withRunning(simulator) { simulator async throws in
            let git = GitClient(scratch: try TemporaryDirectory())
            let url = simulator.baseURL + "/acme/widgets.git"
            let client = try HTTPClient()
            func control(_ query: String, method: String = "POST") async throws -> HTTPResponse {
                try await client.send(
                    HTTPRequest(url: simulator.baseURL + "/_sim/repos/acme/widgets/tag?" + query, method: method, body: []))
            }
            let before = try await Self.lsRemote(git, url)
            let head = try #require(before["HEAD"])
            #expect(try await control("name=v1.2.0&at=\(head)").status == 200)
            let annotated = try await control("name=v1.3.0&at=\(head)&message=Moved%20to%20the%20head")
            #expect(annotated.status == 200)
            #expect(try await control("name=v1.1.0", method: "DELETE").status == 200)
            #expect(try await control("name=fresh&at=\(head)").status == 200)
            #expect(try await control("name=bad..name&at=\(head)").status == 422)
            #expect(try await control("name=v9&at=\(String(repeating: "0", count: 40))").status == 422)
            #expect(try await control("name=absent", method: "DELETE").status == 422)

            let after = try await Self.lsRemote(git, url)
            #expect(after["refs/tags/v1.2.0"] == head && before["refs/tags/v1.2.0"] != head)
            #expect(after["refs/tags/v1.3.0^{}"] == head && after["refs/tags/v1.3.0"] != before["refs/tags/v1.3.0"])
            let tagObject = try #require(after["refs/tags/v1.3.0"])
            #expect(String(decoding: annotated.body, as: UTF8.self).contains(tagObject))
            #expect(after["refs/tags/v1.1.0"] == nil && before["refs/tags/v1.1.0"] != nil)
            #expect(after["refs/tags/fresh"] == head)
            #expect(after.count == before.count)
        }
    }

    @Test(.enabled(if: hasBundle, "../shared/datasets/alamofire.bundle not present"))
    func theBundlesTagsAreServedExactlyAsGitListsThem() async throws {
        let scratch = try TemporaryDirectory()
        let git = GitClient(scratch: scratch)
        let source = scratch.path("alamofire.git")
        let made = try await git.run(["clone", "--quiet", "--bare", Self.alamofireBundle, source])
        #expect(made.status == 0, "\(made.stderr)")
        let simulator = try await GitServingTests.started([
            SimRepository(owner: "Alamofire", name: "Alamofire", id: 9, source: .gitRepository(path: source))
        ])
        try await withRunning(simulator) { simulator async throws in
            let url = simulator.baseURL + "/Alamofire/Alamofire.git"
            // A bundle lists no peeled values; the repository cloned from it lists them for its 4 annotated tags.
            let bundle = try await Self.lsRemote(git, Self.alamofireBundle).filter { $0.key.hasPrefix("refs/tags/") }
            let peeled = try await Self.lsRemote(git, source, ["refs/tags/*"])
            let served = try await Self.lsRemote(git, url, ["refs/tags/*"])
            #expect(bundle.count == 107 && peeled.count == 107 + 4)
            #expect(served.filter { !$0.key.hasSuffix("^{}") } == bundle)
            #expect(served == peeled)

            let clone = scratch.path("served.git")
            let cloned = try await git.run(["clone", "--quiet", "--bare", "--filter=tree:0", url, clone])
            #expect(cloned.status == 0, "\(cloned.stderr)")
            #expect(try await Self.tagRefs(git, in: clone) == (try await Self.tagRefs(git, in: source)))
            // The five tags off master reach commits only they reach, and the clone has them all.
            let count = try await git.run(["rev-list", "--count", "--tags", "--not", "master"], in: clone)
            #expect(Int(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 > 0)
            #expect(count.stdout == (try await git.run(["rev-list", "--count", "--tags", "--not", "master"], in: source)).stdout)
        }
    }
}
