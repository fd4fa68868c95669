import Curl
import Foundation
import MirrorTestSupport
import Testing

@testable import GitHubSim

/// The REST endpoints for tags over libcurl: `/tags` and `/releases` paged with `Link` and ETags
/// (a 304 free with a token), `/git/refs/tags`, `/git/matching-refs/tags/…` and `/git/tags/{sha}`
/// agreeing with what git's ref listing says.
@Suite struct TagsRESTTests {
    static let token = GitServingTests.token

    static func get(_ client: HTTPClient, _ url: String, etag: String? = nil) async throws -> HTTPResponse {
        var headers: Curl.HTTPHeaders = [
            ("Authorization", "Bearer \(token)"), ("User-Agent", "tags-tests"), ("Accept", "application/vnd.github+json"),
        ]
        if let etag { headers.add(name: "If-None-Match", value: etag) }
        return try await client.send(HTTPRequest(url: url, headers: headers))
    }

    static func json(_ response: HTTPResponse) throws -> Any { try JSONSerialization.jsonObject(with: Data(response.body)) }

    static func next(_ response: HTTPResponse) -> String? {
        response.headers["link"].flatMap { header in
            header.split(separator: ",").first { $0.contains("rel=\"next\"") }.map { part in
                String(part.drop { $0 != "<" }.dropFirst().prefix { $0 != ">" })
            }
        }
    }

    /// Every element of a paged listing, following `Link: rel="next"`; and the pages it took.
    static func all(_ client: HTTPClient, _ url: String) async throws -> (elements: [[String: Any]], pages: Int) {
        var elements: [[String: Any]] = []
        var pages = 0
        var url: String? = url
        while let next = url, pages < 50 {
            let response = try await get(client, next)
            #expect(response.status == 200)
            elements += try json(response) as? [[String: Any]] ?? []
            pages += 1
            url = Self.next(response)
        }
        return (elements, pages)
    }

    /// 800 commits, a release tag every 4: 199 release tags and 49 side tags.
    static func started() async throws -> GitHubSimulator {
        try await GitServingTests.started([TagsOverGitTests.taggedSynthetic(commits: 800, tagEvery: 4)])
    }

    @Test func tagsArePagedNewestVersionFirstWithLinksAndAFree304() async throws {
        let simulator = try await Self.started()
        try await withRunning(simulator) { simulator async throws in
            let client = try HTTPClient()
            let base = simulator.baseURL + "/repos/acme/widgets/tags?per_page=100"
            let (tags, pages) = try await Self.all(client, base)
            #expect(pages == 3 && tags.count == 199 + 49)
            let names = tags.compactMap { $0["name"] as? String }
            #expect(Set(names).count == tags.count)
            #expect(names.first == "v1.199.0" && names.contains("v1.10.0"))
            #expect(names.firstIndex(of: "v1.10.0")! < names.firstIndex(of: "v1.9.0")!)

            let git = GitClient(scratch: try TemporaryDirectory())
            let refs = try await TagsOverGitTests.lsRemote(git, simulator.baseURL + "/acme/widgets.git", ["refs/tags/*"])
            for tag in tags {
                let name = try #require(tag["name"] as? String)
                let sha = (tag["commit"] as? [String: Any])?["sha"] as? String
                #expect(sha == refs["refs/tags/\(name)^{}"] ?? refs["refs/tags/\(name)"], "\(name)")
            }

            let first = try await Self.get(client, base)
            let etag = try #require(first.headers["etag"])
            #expect(first.headers["link"]?.contains("/repositories/7/tags?per_page=100&page=2>; rel=\"next\"") == true)
            let again = try await Self.get(client, base, etag: etag)
            #expect(again.status == 304 && again.body.isEmpty)
            #expect(again.headers["x-ratelimit-remaining"] == first.headers["x-ratelimit-remaining"])

            let head = try #require(try await TagsOverGitTests.lsRemote(git, simulator.baseURL + "/acme/widgets.git")["HEAD"])
            let moved = try await client.send(
                HTTPRequest(url: simulator.baseURL + "/_sim/repos/acme/widgets/tag?name=v1.199.0&at=\(head)", method: "POST", body: []))
            #expect(moved.status == 200)
            let changed = try await Self.get(client, base, etag: etag)
            #expect(changed.status == 200)
            #expect(((try Self.json(changed) as? [[String: Any]])?.first?["commit"] as? [String: Any])?["sha"] as? String == head)
        }
    }

    @Test func gitRefsAndTagObjectsAgreeWithTheRefListing() async throws {
        let simulator = try await Self.started()
        try await withRunning(simulator) { simulator async throws in
            let client = try HTTPClient()
            let api = simulator.baseURL + "/repos/acme/widgets"
            let git = GitClient(scratch: try TemporaryDirectory())
            let refs = try await TagsOverGitTests.lsRemote(git, simulator.baseURL + "/acme/widgets.git", ["refs/tags/*"])

            let listing = try #require(try Self.json(try await Self.get(client, api + "/git/refs/tags")) as? [[String: Any]])
            #expect(listing.count == 248)
            let names = listing.compactMap { $0["ref"] as? String }
            #expect(names == names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
            for entry in listing {
                let ref = try #require(entry["ref"] as? String)
                let object = try #require(entry["object"] as? [String: Any])
                #expect(object["sha"] as? String == refs[ref], "\(ref)")
                #expect(object["type"] as? String == (refs[ref + "^{}"] == nil ? "commit" : "tag"), "\(ref)")
            }

            let one = try #require(try Self.json(try await Self.get(client, api + "/git/refs/tags/v1.3.0")) as? [String: Any])
            let object = try #require(one["object"] as? [String: Any])
            #expect(one["ref"] as? String == "refs/tags/v1.3.0" && object["type"] as? String == "tag")
            #expect(try await Self.get(client, api + "/git/refs/tags/v1.3").status == 404)
            let matching = try #require(
                try Self.json(try await Self.get(client, api + "/git/matching-refs/tags/v1.19")) as? [[String: Any]])
            #expect(matching.compactMap { $0["ref"] as? String } == ["refs/tags/v1.19.0"] + (190...199).map { "refs/tags/v1.\($0).0" })
            #expect((try Self.json(try await Self.get(client, api + "/git/matching-refs/tags/none")) as? [Any])?.isEmpty == true)

            let sha = try #require(object["sha"] as? String)
            let tagResponse = try await Self.get(client, api + "/git/tags/\(sha)")
            let tag = try #require(try Self.json(tagResponse) as? [String: Any])
            #expect(tag["sha"] as? String == sha && tag["tag"] as? String == "v1.3.0")
            #expect(tag["message"] as? String == "Release v1.3.0\n")
            #expect((tag["object"] as? [String: Any])?["sha"] as? String == refs["refs/tags/v1.3.0^{}"])
            #expect((tag["tagger"] as? [String: Any])?["date"] as? String != nil)
            let etag = try #require(tagResponse.headers["etag"])
            #expect(try await Self.get(client, api + "/git/tags/\(sha)", etag: etag).status == 304)
            #expect(try await Self.get(client, api + "/git/tags/\(refs["refs/tags/v1.3.0^{}"]!)").status == 404)
        }
    }

    @Test func aReleaseForEveryAnnotatedTagNewestFirst() async throws {
        let simulator = try await Self.started()
        try await withRunning(simulator) { simulator async throws in
            let client = try HTTPClient()
            let (releases, pages) = try await Self.all(client, simulator.baseURL + "/repos/acme/widgets/releases?per_page=30")
            // Every third of the 199 release tags is annotated.
            #expect(releases.count == 66 && pages == 3)
            #expect(releases.first?["tag_name"] as? String == "v1.198.0")
            #expect(releases.allSatisfy { $0["draft"] as? Bool == false && $0["prerelease"] as? Bool == false })
            let published = releases.compactMap { $0["published_at"] as? String }
            #expect(published.count == 66 && published == published.sorted(by: >))
            #expect(Set(releases.compactMap { $0["id"] as? Int }).count == 66)
        }
    }
}
