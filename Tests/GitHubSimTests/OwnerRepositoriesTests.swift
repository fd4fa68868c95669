import Foundation
import NIOCore
import Testing

@testable import GitHubSim
import NIOHTTP1

/// `/orgs/{org}/repos` and `/users/{user}/repos`: GitHub's repository objects,
/// pagination, weak ETags with free 304s, and repositories added or deleted at run time.
@Suite struct OwnerRepositoriesTests {
    let client: CoreClient

    init() throws {
        var repositories = (1...5).map { synthetic(10, owner: "acme", name: "r\($0)", id: 100 + $0, seed: UInt64($0)) }
        repositories.append(SimRepository(owner: "acme", name: "forked", id: 200, source: .empty, fork: true))
        repositories.append(SimRepository(owner: "acme", name: "attic", id: 201, source: .empty, archived: true))
        repositories.append(synthetic(3, owner: "solo", name: "b", id: 301))
        repositories.append(synthetic(3, owner: "solo", name: "a", id: 302))
        client = try CoreClient.uncompressed(repositories) { $0.userAccounts = ["solo"] }
    }

    @Test func anOrganizationListsItsRepositoriesNewestFirstWithGitHubsFields() throws {
        let response = client.get("/orgs/acme/repos?type=all&per_page=100", token: "t")
        #expect(response.code == 200)
        let names = response.jsonArray.compactMap { $0["full_name"] as? String }
        #expect(names == ["acme/attic", "acme/forked", "acme/r5", "acme/r4", "acme/r3", "acme/r2", "acme/r1"])
        let first = try #require(response.jsonArray.first)
        for key in [
            "id", "node_id", "name", "full_name", "private", "owner", "html_url", "fork", "url", "clone_url", "default_branch", "archived",
        ] {
            #expect(first[key] != nil, "missing \(key)")
        }
        #expect(first["archived"] as? Bool == true && first["fork"] as? Bool == false)
        #expect((first["owner"] as? [String: Any])?["login"] as? String == "acme")
        #expect(response.jsonArray[1]["fork"] as? Bool == true)
        #expect(client.get("/orgs/acme/repos?type=forks").jsonArray.count == 1)
        #expect(client.get("/orgs/acme/repos?type=sources").jsonArray.count == 6)
    }

    @Test func pagesLinkThroughTheAccountIDAndEndWithAnEmptyPage() {
        let first = client.get("/orgs/acme/repos?per_page=3", token: "t")
        let link = first.header("Link") ?? ""
        #expect(link.contains("/organizations/") && link.contains("rel=\"next\""), "\(link)")
        let next = String(link.drop { $0 != "<" }.dropFirst().prefix { $0 != ">" }).replacingOccurrences(of: "http://sim.test", with: "")
        let second = client.get(next, token: "t")
        #expect(second.jsonArray.compactMap { $0["name"] as? String } == ["r4", "r3", "r2"])
        #expect(client.get("/orgs/acme/repos?per_page=3&page=3", token: "t").jsonArray.count == 1)
        #expect(client.get("/orgs/acme/repos?per_page=3&page=4", token: "t").text == "[]")
    }

    @Test func aConditionalRequestIsAnswered304AndCostsNothing() {
        let first = client.get("/orgs/acme/repos?per_page=100", token: "t")
        let etag = try! #require(first.header("ETag"))
        let used = client.core.stats().rateLimitUsed.values.reduce(0, +)
        let again = client.get("/orgs/acme/repos?per_page=100", headers: [("If-None-Match", etag)], token: "t")
        #expect(again.code == 304)
        #expect(client.core.stats().rateLimitUsed.values.reduce(0, +) == used)
        // A change to the listing changes the ETag.
        #expect(client.post("/_sim/repos/acme/newer?commits=4").code == 200)
        let changed = client.get("/orgs/acme/repos?per_page=100", headers: [("If-None-Match", etag)], token: "t")
        #expect(changed.code == 200 && changed.jsonArray.first?["full_name"] as? String == "acme/newer")
    }

    @Test func aUserAccountIsListedOnlyThroughUsers() {
        #expect(client.get("/orgs/solo/repos").code == 404)
        let user = client.get("/users/solo/repos")
        #expect(user.jsonArray.compactMap { $0["name"] as? String } == ["a", "b"])
        #expect(client.get("/orgs/nobody/repos").code == 404 && client.get("/users/nobody/repos").code == 404)
    }

    @Test func controlEndpointsAddAndDeleteRepositories() {
        let added = client.post("/_sim/repos/acme/fresh?commits=7&fork=true")
        #expect(added.code == 200)
        let id = added.jsonDictionary["id"] as? Int
        #expect(id == 302 + 1)
        #expect(client.get("/repos/acme/fresh").jsonDictionary["fork"] as? Bool == true)
        #expect(client.get("/repos/acme/fresh/commits").shas.count == 7)
        #expect(client.post("/_sim/repos/acme/fresh?commits=1").code == 422, "a taken name")
        #expect(client.post("/_sim/repos/acme/x?commits=-1").code == 400)
        let deleted = client.core.handle(SimRequest(method: .DELETE, uri: "/_sim/repos/acme/fresh"))
        #expect(Int(deleted.status.code) == 200)
        #expect(client.get("/repos/acme/fresh").code == 404)
        #expect(!client.get("/orgs/acme/repos").jsonArray.contains { $0["name"] as? String == "fresh" })
        #expect(Int(client.core.handle(SimRequest(method: .DELETE, uri: "/_sim/repos/acme/fresh")).status.code) == 404)
    }
}
