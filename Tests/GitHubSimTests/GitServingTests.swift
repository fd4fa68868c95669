import Curl
import Foundation
import MirrorTestSupport
import NIOCore
import NIOHTTP1
import Testing

@testable import GitHubSim

/// The simulator's smart HTTP against real git over loopback: what a commits-only clone holds is
/// what the REST listing says, field for field.
@Suite struct GitServingTests {
    static let token = "ghp_gitservingtoken"

    static func started(_ repositories: [SimRepository], configuration: SimConfiguration = .init()) async throws -> GitHubSimulator {
        var configuration = configuration
        configuration.validTokens = [token]
        let simulator = try GitHubSimulator(configuration: configuration, repositories: repositories)
        try await simulator.start()
        return simulator
    }

    /// Every element of the REST listing from the head, as JSON objects.
    static func restListing(_ simulator: GitHubSimulator, repository: String = "acme/widgets") async throws -> [[String: Any]] {
        var elements: [[String: Any]] = []
        for page in try await savedPages(simulator, repository: repository, token: token) {
            elements += try JSONSerialization.jsonObject(with: Data(page)) as? [[String: Any]] ?? []
        }
        return elements
    }

    @Test(arguments: [SyntheticSpec.Shape.simple, .realistic])
    func aCommitsOnlyCloneAgreesWithTheRESTListingFieldForField(_ shape: SyntheticSpec.Shape) async throws {
        let simulator = try await Self.started([
            SimRepository.widgets(id: 7, SyntheticSpec(commits: 240, shape: shape, seed: 21))
        ])
        try await withRunning(simulator) { simulator async throws in
            let scratch = try TemporaryDirectory()
            let git = GitClient(scratch: scratch)
            let clone = scratch.path("widgets.git")
            let cloned = try await git.run([
                "clone", "--quiet", "--bare", "--filter=tree:0", simulator.baseURL + "/acme/widgets.git", clone,
            ])
            #expect(cloned.status == 0, "\(cloned.stderr)")
            #expect(try await git.run(["rev-list", "--all", "--count"], in: clone).stdout == "240\n")
            // git verified the pack (index-pack hashes every object); its deltas are the simulator's.
            let verify = try await git.run(["verify-pack", "-v"] + [try Self.packIndex(in: clone)], in: clone)
            #expect(verify.lines.filter { $0.split(separator: " ", omittingEmptySubsequences: true).count == 7 }.count > 200)

            let stats = simulator.stats()
            #expect(stats.gitRequests == 3)  // info/refs, ls-refs, fetch
            #expect(stats.requests == 0 && stats.rateLimitUsed.isEmpty)
            #expect(stats.gitPackBytes > 240 * 100)

            let objects = try await git.commitObjects(in: clone)
            let listing = try await Self.restListing(simulator)
            #expect(listing.count == 240 && objects.count == 240)
            var merges = 0
            var withoutNewline = 0
            for element in listing {
                let sha = try #require(element["sha"] as? String)
                let object = try #require(objects[sha], "\(sha) is not in the clone")
                let commit = try #require(element["commit"] as? [String: Any])
                #expect(object.tree == (commit["tree"] as? [String: Any])?["sha"] as? String)
                #expect(object.parents == (element["parents"] as? [[String: Any]])?.compactMap { $0["sha"] as? String })
                for (ident, person) in [(object.author, commit["author"]), (object.committer, commit["committer"])] {
                    let person = try #require(person as? [String: String])
                    #expect(ident.name == person["name"] && ident.email == person["email"])
                    #expect(Timestamp.iso8601UTC(ident.time) == person["date"])
                }
                let message = try #require(commit["message"] as? String)
                if object.message.hasSuffix("\n") {
                    #expect(String(object.message.dropLast()) == message)
                } else {
                    #expect(object.message == message)
                    withoutNewline += 1
                }
                if object.parents.count > 1 { merges += 1 }
            }
            #expect(merges >= 240 / (shape == .simple ? 8 : 4) - 1)
            #expect(withoutNewline > 0)
            #expect(simulator.stats().gitRequests == 3, "the REST pages are not git requests")
        }
    }

    static func packIndex(in repository: String) throws -> String {
        let directory = repository + "/objects/pack"
        let name = try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".idx") }
        return directory + "/" + (try #require(name))
    }

    @Test func aPrivateRepositoryNeedsTheTokenAsBasicCredentials() async throws {
        let simulator = try await Self.started([
            SimRepository(owner: "acme", name: "secret", id: 8, source: .synthetic(SyntheticSpec(commits: 30)), isPrivate: true)
        ])
        try await withRunning(simulator) { simulator async throws in
            let client = try HTTPClient()
            let url = simulator.baseURL + "/acme/secret.git/info/refs?service=git-upload-pack"
            func advertisement(_ authorization: String?) async throws -> HTTPResponse {
                var headers: Curl.HTTPHeaders = [("User-Agent", "git/2.39"), ("Git-Protocol", "version=2")]
                if let authorization { headers.add(name: "Authorization", value: authorization) }
                return try await client.send(HTTPRequest(url: url, headers: headers))
            }
            let anonymous = try await advertisement(nil)
            #expect(anonymous.status == 401)
            #expect(anonymous.headers["www-authenticate"]?.hasPrefix("Basic") == true)
            let wrong = try await advertisement("Basic " + Data("x-access-token:ghp_wrong".utf8).base64EncodedString())
            #expect(wrong.status == 401)
            let granted = try await advertisement("Basic " + Data("x-access-token:\(Self.token)".utf8).base64EncodedString())
            #expect(granted.status == 200)
            #expect(String(decoding: granted.body, as: UTF8.self).contains("version 2"))
            #expect(granted.headers["content-type"] == "application/x-git-upload-pack-advertisement")

            // Real git with the token in its configuration (from the environment, never argv).
            let scratch = try TemporaryDirectory()
            var git = GitClient(scratch: scratch)
            let refused = try await git.run([
                "clone", "--bare", "--filter=tree:0", simulator.baseURL + "/acme/secret.git", scratch.path("a.git"),
            ])
            #expect(refused.status != 0)
            git.configuration = [
                ("http.extraHeader", "Authorization: Basic " + Data("x-access-token:\(Self.token)".utf8).base64EncodedString())
            ]
            let cloned = try await git.run([
                "clone", "--quiet", "--bare", "--filter=tree:0", simulator.baseURL + "/acme/secret.git", scratch.path("b.git"),
            ])
            #expect(cloned.status == 0, "\(cloned.stderr)")
            #expect(try await git.run(["rev-list", "--all", "--count"], in: scratch.path("b.git")).stdout == "30\n")

            // The API hides it from anonymous requests, as GitHub does.
            let rest = try await client.send(
                HTTPRequest(url: simulator.baseURL + "/repos/acme/secret", headers: [("User-Agent", "tests")]))
            #expect(rest.status == 404)
            let seen = try await client.send(
                HTTPRequest(
                    url: simulator.baseURL + "/repos/acme/secret",
                    headers: [("User-Agent", "tests"), ("Authorization", "Bearer \(Self.token)")]))
            #expect(seen.status == 200)
            let repository = try JSONSerialization.jsonObject(with: Data(seen.body)) as? [String: Any]
            #expect(repository?["private"] as? Bool == true && repository?["visibility"] as? String == "private")
        }
    }

    @Test func cloneURLIsTheSimulatorsOwnForEveryRepository() throws {
        let client = try CoreClient(repositories: [synthetic(5)], baseURL: "http://127.0.0.1:4242")
        let repository = client.get("/repos/acme/widgets").jsonDictionary
        #expect(repository["clone_url"] as? String == "http://127.0.0.1:4242/acme/widgets.git")
    }

    /// A dataset's objects cannot be rebuilt: its git endpoint answers as GitHub does for a
    /// repository that does not exist.
    @Test func aDatasetRepositoryAnswersAsAMissingOne() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("git-\(UUID()).jsonl").path
        let line =
            #"{"sha":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","parents":[],"tree":"cccccccccccccccccccccccccccccccccccccccc","author":{"name":"Zoë","email":"zoe@example.com","date":"2020-01-01T00:00:00Z"},"committer":{"name":"Zoë","email":"zoe@example.com","date":"2020-01-01T00:00:00Z"},"message":"first"}"#
        try (line + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let client = try CoreClient(repositories: [SimRepository(owner: "o", name: "r", id: 1, source: .dataset(path: path))])
        #expect(client.get("/repos/o/r").jsonDictionary["clone_url"] as? String == "http://sim.test/o/r.git")
        let gitHeaders = [("Git-Protocol", "version=2")]
        #expect(client.get("/o/r.git/info/refs?service=git-upload-pack", headers: gitHeaders).code == 401)
        let basic = "Basic " + Data("x-access-token:t".utf8).base64EncodedString()
        #expect(client.get("/o/r.git/info/refs?service=git-upload-pack", headers: gitHeaders + [("Authorization", basic)]).code == 404)
        #expect(
            client.get("/nobody/else.git/info/refs?service=git-upload-pack", headers: gitHeaders + [("Authorization", basic)]).code == 404)
        #expect(client.core.stats().gitRequests == 3 && client.core.stats().requests == 1)
    }

    @Test func lsRefsHonoursRefPrefixAndFetchRefusesWhatItCannotServe() throws {
        let client = try CoreClient(repositories: [synthetic(20)])
        let head = SyntheticRepository(spec: SyntheticSpec(commits: 20, authors: 50, seed: 1)).sha(at: 19)
        func post(_ lines: [String]) -> [String] {
            var body = ByteBuffer()
            for line in lines {
                switch line {
                case "<delim>": body.writeStaticString("0001")
                case "<flush>": body.writeStaticString("0000")
                default: body.writePacketLine(line + "\n")
                }
            }
            let response = client.core.handle(
                SimRequest(
                    method: .POST, uri: "/acme/widgets.git/git-upload-pack",
                    headers: NIOHTTP1.HTTPHeaders([("Git-Protocol", "version=2"), ("User-Agent", "tests")]), body: body))
            return (PacketLine.parse(response.body.map { Array($0.readableBytesView) } ?? []) ?? []).map { $0.text ?? "<\($0)>" }
        }
        #expect(post(["command=ls-refs", "<delim>", "ref-prefix refs/heads/main", "<flush>"]) == ["\(head) refs/heads/main", "<flush>"])
        #expect(
            post(["command=ls-refs", "<delim>", "symrefs", "ref-prefix HEAD", "<flush>"])
                == ["\(head) HEAD symref-target:refs/heads/main", "<flush>"])
        #expect(post(["command=ls-refs", "<delim>", "ref-prefix refs/tags/", "<flush>"]) == ["<flush>"])
        #expect(post(["command=fetch", "<delim>", "want \(head)", "done", "<flush>"]).first?.hasPrefix("ERR ") == true)
        #expect(
            post(["command=fetch", "<delim>", "want \(String(repeating: "1", count: 40))", "filter tree:0", "done", "<flush>"])
                == ["ERR upload-pack: not our ref \(String(repeating: "1", count: 40))"])
        #expect(post(["command=fetch", "<delim>", "want \(head)", "filter tree:0", "<flush>"]) == ["acknowledgments", "NAK", "<flush>"])
        // A gzip'd command is read; one that inflates past 1 MB is refused, not inflated whole.
        func gzipped(_ lines: [UInt8]) -> SimResponse {
            client.core.handle(
                SimRequest(
                    method: .POST, uri: "/acme/widgets.git/git-upload-pack",
                    headers: NIOHTTP1.HTTPHeaders([("Git-Protocol", "version=2"), ("Content-Encoding", "gzip")]),
                    body: Gzip.compress(ByteBuffer(bytes: lines))))
        }
        let lsRefs = Array("0014command=ls-refs\n00010000".utf8)
        #expect(PacketLine.parse(Array(gzipped(lsRefs).body!.readableBytesView))?.count == 3)  // HEAD, main, flush
        let bomb = gzipped(lsRefs + [UInt8](repeating: 0x30, count: 2 << 20))
        #expect(bomb.text.contains("ERR github-sim: the request is not a protocol v2 command"))
        #expect(client.core.stats().requests == 0 && client.core.stats().gitRequests == 8)
    }

    @Test func latencyDelaysAPIAndGitAnswersAlike() async throws {
        var configuration = SimConfiguration()
        configuration.latency = .milliseconds(250)
        let simulator = try await Self.started([synthetic(10)], configuration: configuration)
        try await withRunning(simulator) { simulator async throws in
            let client = try HTTPClient()
            for (url, headers) in [
                ("/repos/acme/widgets", [("User-Agent", "tests")]),
                ("/acme/widgets.git/info/refs?service=git-upload-pack", [("User-Agent", "git/2.39"), ("Git-Protocol", "version=2")]),
            ] {
                let started = ContinuousClock.now
                let response = try await client.send(HTTPRequest(url: simulator.baseURL + url, headers: Curl.HTTPHeaders(headers)))
                #expect(response.status == 200)
                #expect(ContinuousClock.now - started >= .milliseconds(250), "\(url) was not delayed")
            }
            let stats = simulator.stats()
            #expect(stats.requests == 1 && stats.gitRequests == 1)
        }
    }

    @Test func theCommandLineSetsLatencyAndAGitFaultAndRefusesBadOnes() async throws {
        let unknown = try await run("github-sim", ["--synthetic", "acme/widgets=5", "--git-fault", "flaky"])
        #expect(unknown.status != 0)
        #expect(
            unknown.stderr
                == "github-sim: --git-fault flaky: unknown fault; use one of truncated-pack, bad-pack-checksum, side-band-error, protocol-v0-only, unauthorized, altered-commit, endless-progress, trickled-pack, echoed-error-band\n"
        )
        let negative = try await run("github-sim", ["--synthetic", "acme/widgets=5", "--latency-ms=-5"])
        #expect(negative.status != 0 && negative.stderr.hasPrefix("github-sim: --latency-ms -5: expected milliseconds"))

        let simulator = try await SimulatorProcess.start([
            "--synthetic", "acme/widgets=20", "--git-fault", "protocol-v0-only", "--latency-ms", "200",
        ])
        defer { simulator.stop() }
        let started = ContinuousClock.now
        let response = try await HTTPClient().send(
            HTTPRequest(
                url: simulator.baseURL + "/acme/widgets.git/info/refs?service=git-upload-pack",
                headers: [("User-Agent", "git/2.39"), ("Git-Protocol", "version=2")]))
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == 200 && !text.contains("version 2") && text.contains(" refs/heads/main"))
        let stats = try await simulator.control("/_sim/stats")
        #expect(stats["gitRequests"] as? Int == 1 && stats["requests"] as? Int == 0)
        // The fault is steered at run time like the others.
        try await simulator.control("/_sim/faults", method: "POST", body: #"{"git":null}"#)
        let healthy = try await HTTPClient().send(
            HTTPRequest(
                url: simulator.baseURL + "/acme/widgets.git/info/refs?service=git-upload-pack",
                headers: [("User-Agent", "git/2.39"), ("Git-Protocol", "version=2")]))
        #expect(String(decoding: healthy.body, as: UTF8.self).contains("version 2"))
        // A private repository added at run time: hidden from anonymous API requests, 401 for git.
        try await simulator.control("/_sim/repos/acme/hidden?commits=5&private=true", method: "POST")
        let hidden = try await HTTPClient().send(
            HTTPRequest(url: simulator.baseURL + "/repos/acme/hidden", headers: [("User-Agent", "tests")]))
        #expect(hidden.status == 404)
        let hiddenGit = try await HTTPClient().send(
            HTTPRequest(
                url: simulator.baseURL + "/acme/hidden.git/info/refs?service=git-upload-pack",
                headers: [("User-Agent", "git/2.39"), ("Git-Protocol", "version=2")]))
        #expect(hiddenGit.status == 401)
        let refused = try await simulator.control("/_sim/faults", method: "POST", body: #"{"git":"sometimes"}"#)
        #expect((refused["message"] as? String)?.hasPrefix("git must be null or one of truncated-pack") == true)
    }
}
