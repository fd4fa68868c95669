import MirrorTestSupport
import Foundation
import NIOCore
import Testing
@testable import GitHubSim

/// The request pipeline end to end, without sockets (see HTTPTests for the wire).
@Suite struct RequestHandlingTests {
    let client: CoreClient

    init() throws {
        client = try CoreClient.uncompressed([synthetic(250), SimRepository(owner: "acme", name: "void", id: 43, source: .empty)])
    }

    @Test func listHasGitHubsHeaders() {
        let response = client.get("/repos/acme/widgets/commits?per_page=2", token: "tok1")
        #expect(response.code == 200)
        #expect(response.header("Content-Type") == "application/json; charset=utf-8")
        #expect(response.header("Cache-Control") == "private, max-age=60, s-maxage=60")
        #expect(response.header("X-GitHub-Media-Type") == "github.v3; format=json")
        #expect(response.header("x-github-api-version-selected") == "2022-11-28")
        #expect(response.header("X-RateLimit-Resource") == "core")
        #expect(response.header("X-GitHub-Request-Id") != nil)
        let etag = response.header("ETag") ?? ""
        #expect(etag.hasPrefix("W/\"") && etag.count == 68)
        let head = SyntheticRepository(spec: SyntheticSpec(commits: 250, authors: 50, seed: 1))
        #expect(response.header("Last-Modified") == Timestamp.httpDate(head.committerTime(at: 249)))
        #expect(response.shas == [head.sha(at: 249), head.sha(at: 248)])
        #expect(
            response.header("Link")
                == "<http://sim.test/repositories/42/commits?per_page=2&page=2>; rel=\"next\", <http://sim.test/repositories/42/commits?per_page=2&page=126>; rel=\"last\""
        )
        #expect(client.get("/repos/acme/widgets/commits").header("Cache-Control") == "public, max-age=60, s-maxage=60")
    }

    @Test func paginationClampsAndRunsPastTheEnd() {
        #expect(client.get("/repos/acme/widgets/commits").shas.count == 30)
        #expect(client.get("/repos/acme/widgets/commits?per_page=1000").shas.count == 100)
        #expect(client.get("/repos/acme/widgets/commits?per_page=0").shas.count == 30)
        let pageZero = client.get("/repos/acme/widgets/commits?page=0&per_page=5")
        #expect(pageZero.shas == client.get("/repos/acme/widgets/commits?per_page=5").shas)
        let past = client.get("/repos/acme/widgets/commits?per_page=100&page=4")
        #expect(past.code == 200 && past.text == "[]")
        #expect(past.header("Last-Modified") == nil)
        var all = [String]()
        for page in 1...3 { all += client.get("/repositories/42/commits?per_page=100&page=\(page)").shas }
        #expect(all.count == 250 && Set(all).count == 250)
    }

    @Test func shaParameterPinsTheWalkAndUnknownOnesAre404() {
        let repo = SyntheticRepository(spec: SyntheticSpec(commits: 250, authors: 50, seed: 1))
        let pinned = client.get("/repos/acme/widgets/commits?sha=\(repo.sha(at: 100))&per_page=3")
        #expect(pinned.shas == [repo.sha(at: 100), repo.sha(at: 99), repo.sha(at: 98)])
        #expect(client.get("/repos/acme/widgets/commits?sha=main&per_page=1").shas == [repo.sha(at: 249)])
        #expect(client.get("/repos/acme/widgets/commits?sha=nope").code == 404)
        #expect(client.get("/repos/acme/widgets/commits?sha=\(String(repeating: "f", count: 40))").code == 404)
    }

    @Test func sinceAndUntilFilterOnCommitterDateInclusively() {
        let repo = SyntheticRepository(spec: SyntheticSpec(commits: 250, authors: 50, seed: 1))
        let since = Timestamp.iso8601UTC(repo.committerTime(at: 10))
        let until = Timestamp.iso8601UTC(repo.committerTime(at: 20)).replacingOccurrences(of: "Z", with: "%2B00%3A00")
        let response = client.get("/repos/acme/widgets/commits?since=\(since)&until=\(until)")
        #expect(response.shas == (10...20).reversed().map(repo.sha(at:)))
        #expect(client.get("/repos/acme/widgets/commits?since=garbage").code == 400)
    }

    @Test func matchingETagGives304ThatIsFreeOnlyWhenAuthenticated() {
        let first = client.get("/repos/acme/widgets/commits", token: "tok-a")
        let etag = first.header("ETag")!
        #expect(first.header("X-RateLimit-Used") == "1")
        for tag in [etag, String(etag.dropFirst(2)), "\"other\", \(etag)"] {
            let again = client.get("/repos/acme/widgets/commits", headers: [("If-None-Match", tag)], token: "tok-a")
            #expect(again.code == 304)
            #expect(again.body == nil)
            #expect(again.header("ETag") == etag)
            #expect(again.header("Last-Modified") == first.header("Last-Modified"))
            #expect(again.header("X-RateLimit-Used") == "1")
            #expect(again.header("X-RateLimit-Remaining") == "4999")
        }
        let anonymous = client.get("/repos/acme/widgets/commits", headers: [("If-None-Match", etag)])
        #expect(anonymous.code == 304)
        #expect(anonymous.header("X-RateLimit-Used") == "1")
        #expect(client.stats().notModified == 4)
        #expect(client.stats().rateLimitUsed == ["token:tok-…": 1, "ip:127.0.0.1": 1])

        // A moved head changes the ETag.
        _ = try? client.core.repository(owner: "acme", name: "widgets").moveHead(by: 1)
        #expect(client.get("/repos/acme/widgets/commits", headers: [("If-None-Match", etag)], token: "tok-a").code == 200)
    }

    @Test func errorsHaveGitHubsShape() throws {
        let empty = client.get("/repos/acme/void/commits")
        #expect(empty.code == 409)
        #expect(empty.jsonDictionary["message"] as? String == "Git Repository is empty.")
        #expect(empty.jsonDictionary["status"] as? String == "409")
        #expect(empty.jsonDictionary["documentation_url"] as? String == "https://docs.github.com/rest/commits/commits#list-commits")
        #expect(client.get("/repos/acme/void").code == 200)

        let missing = client.get("/repos/acme/nothing/commits")
        #expect(missing.code == 404 && missing.jsonDictionary["message"] as? String == "Not Found")
        #expect(missing.jsonDictionary["documentation_url"] as? String == "https://docs.github.com/rest")
        #expect(client.get("/repos/acme/widgets/commits/").code == 404)
        #expect(client.get("/repos/acme/widgets/").code == 404)
        #expect(client.get("/repositories/999/commits").code == 404)
        #expect(client.get("/nowhere").code == 404)

        let noAgent = client.get("/repos/acme/widgets/commits", userAgent: nil)
        #expect(noAgent.code == 403)
        #expect((noAgent.jsonDictionary["message"] as? String)?.contains("User-Agent") == true)
        #expect(client.get("/repos/acme/widgets/commits", userAgent: "").code == 403)
        #expect(client.get("/repos/acme/widgets/commits", headers: [("X-GitHub-Api-Version", "1999-01-01")]).code == 400)

        let badRef = client.get("/repos/acme/widgets/commits/nope")
        #expect(badRef.code == 422 && badRef.jsonDictionary["message"] as? String == "No commit found for SHA: nope")
        #expect(client.stats().errors == 10)
    }

    @Test func unknownTokensGet401ChargedToTheClientAddress() throws {
        var configuration = SimConfiguration()
        configuration.validTokens = ["good-token"]
        let strict = try CoreClient(configuration: configuration, repositories: [synthetic(10)])
        #expect(strict.get("/repos/acme/widgets/commits", token: "good-token").code == 200)
        let bad = strict.get("/repos/acme/widgets/commits", token: "bad-token")
        #expect(bad.code == 401)
        #expect(bad.jsonDictionary["message"] as? String == "Bad credentials")
        #expect(bad.jsonDictionary["status"] as? String == "401")
        #expect(bad.header("X-RateLimit-Limit") == "60")
        #expect(strict.get("/repos/acme/widgets", headers: [("Authorization", "token good-token")]).code == 200)
        #expect(strict.get("/repos/acme/widgets", headers: [("Authorization", "Basic dXNlcjpwYXNz")]).code == 401)
        #expect(strict.stats().authorizationHeadersSeen == 4)
        // Any token is fine when no list is configured.
        #expect(client.get("/repos/acme/widgets", token: "whatever").code == 200)
    }

    @Test func exhaustedBudgetGets403UntilTheWindowResets() async throws {
        var configuration = SimConfiguration()
        configuration.authenticatedLimit = 3
        configuration.unauthenticatedLimit = 2
        configuration.rateLimitWindow = .milliseconds(400)
        let limited = try CoreClient(configuration: configuration, repositories: [synthetic(10)])
        for used in 1...3 {
            let ok = limited.get("/repos/acme/widgets/commits", token: "abcdef")
            #expect(ok.code == 200 && ok.header("X-RateLimit-Used") == "\(used)")
        }
        let refused = limited.get("/repos/acme/widgets/commits", token: "abcdef")
        #expect(refused.code == 403)
        #expect(refused.header("X-RateLimit-Remaining") == "0")
        #expect(refused.jsonDictionary["message"] as? String == "API rate limit exceeded for user ID 1.")
        #expect(
            refused.jsonDictionary["documentation_url"] as? String
                == "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting")
        // Other buckets are separate; /rate_limit is free.
        #expect(limited.get("/repos/acme/widgets/commits", token: "zzz").code == 200)
        let rate = limited.get("/rate_limit", token: "abcdef").jsonDictionary
        #expect((rate["rate"] as? [String: Any])?["remaining"] as? Int == 0)
        #expect(((rate["resources"] as? [String: Any])?["core"] as? [String: Any])?["used"] as? Int == 3)

        _ = limited.get("/repos/acme/widgets/commits")
        _ = limited.get("/repos/acme/widgets/commits")
        let anonymous = limited.get("/repos/acme/widgets/commits")
        #expect(anonymous.code == 403)
        #expect((anonymous.jsonDictionary["message"] as? String)?.hasPrefix("API rate limit exceeded for 127.0.0.1.") == true)
        #expect(limited.get("/repos/acme/widgets/commits", ip: "127.0.0.9").code == 200)

        // The 400 ms window ends: /rate_limit (free) shows the budget back.
        #expect(
            await waitUntil(timeout: .seconds(10)) {
                (limited.get("/rate_limit", token: "abcdef").jsonDictionary["rate"] as? [String: Any])?["remaining"] as? Int == 3
            })
        let renewed = limited.get("/repos/acme/widgets/commits", token: "abcdef")
        #expect(renewed.code == 200 && renewed.header("X-RateLimit-Used") == "1")
    }

    @Test func renamedRepositoryAnswers301ToItsIdPath() throws {
        let simulator = try GitHubSimulator(repositories: [synthetic(50)])
        simulator.core.baseURL = "http://sim.test"
        let client = CoreClient(core: simulator.core)
        try simulator.rename(owner: "acme", name: "widgets", to: "acme-corp", newName: "gadgets")

        let moved = client.get("/repos/acme/widgets/commits?sha=main&per_page=5")
        #expect(moved.code == 301)
        #expect(moved.header("Location") == "http://sim.test/repositories/42/commits?sha=main&per_page=5")
        #expect(moved.jsonDictionary["message"] as? String == "Moved Permanently")
        #expect(moved.jsonDictionary["url"] as? String == moved.header("Location"))
        #expect(moved.jsonDictionary["documentation_url"] as? String == "https://docs.github.com/v3/#http-redirects")
        #expect(client.get("/repos/ACME/Widgets").header("Location") == "http://sim.test/repositories/42")

        #expect(client.get("/repos/acme-corp/gadgets/commits").code == 200)
        let byID = client.get("/repositories/42").jsonDictionary
        #expect(byID["full_name"] as? String == "acme-corp/gadgets")
        #expect(byID["id"] as? Int == 42 && byID["default_branch"] as? String == "main")
        let element = client.get("/repositories/42/commits?per_page=1").jsonArray[0]
        #expect((element["url"] as? String)?.hasPrefix("http://sim.test/repos/acme-corp/gadgets/commits/") == true)

        #expect(throws: SimulatorError.self) { try simulator.rename(owner: "acme", name: "widgets", to: "x", newName: "y") }
        try simulator.redirect(owner: "acme-corp", name: "gadgets", toBaseURL: "http://127.0.0.2:9999/")
        let away = client.get("/repos/acme-corp/gadgets/commits?page=2")
        #expect(away.code == 301 && away.header("Location") == "http://127.0.0.2:9999/repos/acme-corp/gadgets/commits?page=2")
        #expect(client.get("/repositories/42").header("Location") == "http://127.0.0.2:9999/repositories/42")
    }

    @Test func shaMediaTypeIsTheCheapBranchCheck() {
        let repo = SyntheticRepository(spec: SyntheticSpec(commits: 250, authors: 50, seed: 1))
        let accept = ("Accept", "application/vnd.github.sha")
        let response = client.get("/repos/acme/widgets/commits/main", headers: [accept], token: "t")
        #expect(response.code == 200)
        #expect(response.text == repo.sha(at: 249))
        #expect(response.header("ETag") == "\"\(repo.sha(at: 249))\"")
        let same = client.get(
            "/repos/acme/widgets/commits/main", headers: [accept, ("If-None-Match", "W/\"\(repo.sha(at: 249))\"")], token: "t")
        #expect(same.code == 304)
        let moved = client.get(
            "/repos/acme/widgets/commits/main", headers: [accept, ("If-None-Match", "\"\(repo.sha(at: 248))\"")], token: "t")
        #expect(moved.code == 200)

        let full = client.get("/repos/acme/widgets/commits/\(repo.sha(at: 7))").jsonDictionary
        #expect(full["sha"] as? String == repo.sha(at: 7))
        #expect(full["stats"] is [String: Any] && full["files"] is [Any])
    }

    @Test func injectedFaultsHitEveryNthListRequest() {
        var plan = FaultPlan()
        plan.serverErrorEvery = 3
        plan.secondaryLimitEvery = 4
        plan.delay = .milliseconds(5)
        client.core.setFaults(plan)
        var codes = [Int]()
        for _ in 1...8 {
            let response = client.get("/repos/acme/widgets/commits", token: "t")
            codes.append(response.code)
            #expect(response.delay == .milliseconds(5))
            if response.code == 502 { #expect(response.text.contains("<html>")) }
            if response.code == 403 {
                #expect(response.header("retry-after") == "1")
                #expect((response.jsonDictionary["message"] as? String)?.hasPrefix("You have exceeded a secondary rate limit") == true)
            }
        }
        #expect(codes == [200, 200, 502, 403, 200, 502, 200, 403])
        #expect(client.get("/repos/acme/widgets", token: "t").delay == .zero)  // only list requests count

        var breaking = FaultPlan()
        breaking.resetEvery = 2
        breaking.truncateEvery = 3
        client.core.setFaults(breaking)
        let dispositions = (1...6).map { _ in client.get("/repositories/42/commits").disposition }
        #expect(dispositions == [.complete, .reset, .truncate, .reset, .complete, .reset])
        let stats = client.stats()
        #expect(stats.listRequests == 14)
        #expect(stats.errors == 4 + 4)
    }

    @Test func controlEndpointsSteerWithoutCounting() throws {
        _ = client.get("/repos/acme/widgets/commits", token: "secret-token")
        let stats = try JSONDecoder().decode(SimStats.self, from: Data(client.get("/_sim/stats", userAgent: nil).text.utf8))
        #expect(stats.requests == 1 && stats.ok == 1 && stats.listRequests == 1)
        #expect(stats.rateLimitUsed == ["token:secr…": 1])

        let repo = SyntheticRepository(spec: SyntheticSpec(commits: 250, authors: 50, seed: 1))
        let back = client.post("/_sim/repos/acme/widgets/head?back=9")
        // First parents from 249: 248, 246 (247 is 248's side commit), 245 … 240, 238.
        #expect(back.jsonDictionary["head"] as? String == repo.sha(at: 238))
        let forward = client.post("/_sim/repos/acme/widgets/head?forward=2")
        #expect(forward.jsonDictionary["head"] as? String == repo.sha(at: 241))
        #expect(client.post("/_sim/repos/acme/none/head?back=1").code == 404)
        #expect(client.post("/_sim/repos/acme/widgets/head").code == 400)

        #expect(client.post("/_sim/faults", body: #"{"serverErrorEvery":1,"delayMilliseconds":7}"#).code == 200)
        let failing = client.get("/repos/acme/widgets/commits")
        #expect(failing.code == 502 && failing.delay == .milliseconds(7))
        #expect(client.post("/_sim/faults", body: #"{"serverErrorEvry":1}"#).code == 400)
        #expect(client.post("/_sim/faults").code == 200)
        #expect(client.get("/repos/acme/widgets/commits").code == 200)

        #expect(client.post("/_sim/reset-stats").code == 200)
        #expect(client.stats() == SimStats())
    }

    @Test func gzipWhenTheClientAcceptsIt() throws {
        let gzipping = try CoreClient(repositories: [synthetic(250)])
        let plain = gzipping.get("/repos/acme/widgets/commits")
        #expect(plain.header("Content-Encoding") == nil)
        let zipped = gzipping.get("/repos/acme/widgets/commits", headers: [("Accept-Encoding", "deflate, gzip")])
        #expect(zipped.header("Content-Encoding") == "gzip")
        let body = try #require(zipped.body)
        #expect(body.readableBytes < plain.body!.readableBytes / 3)
        #expect(try Gzip.decompress(Array(body.readableBytesView)) == Array(plain.body!.readableBytesView))
        #expect(gzipping.get("/repos/acme/widgets/commits", headers: [("Accept-Encoding", "gzip;q=0")]).header("Content-Encoding") == nil)
    }
}

extension CoreClient {
    func stats() -> SimStats { core.stats() }
}
