import MirrorTestSupport
import Foundation
import NIOCore
import Testing
@testable import GitHubSim

@Suite struct RenderingTests {
    static let topLevelKeys = ["sha", "node_id", "commit", "url", "html_url", "comments_url", "author", "committer", "parents"]
    static let userKeys = [
        "login", "id", "node_id", "avatar_url", "gravatar_id", "url", "html_url", "followers_url", "following_url",
        "gists_url", "starred_url", "subscriptions_url", "organizations_url", "repos_url", "events_url",
        "received_events_url", "type", "user_view_type", "site_admin",
    ]

    @Test(arguments: [
        ("plain", "\"plain\""),
        ("say \"hi\"", #""say \"hi\"""#),
        ("back\\slash", #""back\\slash""#),
        ("a\nb\tc\rd", #""a\nb\tc\rd""#),
        ("\u{01}\u{1F}\u{08}\u{0C}", #""\u0001\u001f\b\f""#),
        ("Zoë 李雷 😀", "\"Zoë 李雷 😀\""),
    ])
    func jsonStringEscaping(input: String, expected: String) throws {
        var buffer = ByteBuffer()
        buffer.writeJSONString(input)
        #expect(String(buffer: buffer) == expected)
        let decoded = try JSONSerialization.jsonObject(with: Data(String(buffer: buffer).utf8), options: .fragmentsAllowed)
        #expect(decoded as? String == input)
    }

    @Test func renderedPageParsesWithGitHubsFieldsTypesAndSize() throws {
        let client = try CoreClient(repositories: [synthetic(3_000)])
        let response = client.get("/repos/acme/widgets/commits?per_page=100")
        let bytes = try #require(response.body).readableBytes
        let elements = response.jsonArray
        #expect(elements.count == 100)
        let perElement = bytes / 100
        #expect((2_500...4_500).contains(perElement), "\(perElement) bytes per element")

        // Field order as GitHub sends it (LIST-COMMITS.md §2).
        let text = response.text
        let first = text.dropFirst()
        var position = first.startIndex
        for key in Self.topLevelKeys {
            let range = try #require(first.range(of: "\"\(key)\":", range: position..<first.endIndex))
            position = range.upperBound
        }

        var sawNullAuthor = false
        for element in elements {
            #expect(Set(element.keys) == Set(Self.topLevelKeys))
            let sha = try #require(element["sha"] as? String)
            #expect((element["node_id"] as? String)?.hasPrefix("C_") == true)
            #expect(element["url"] as? String == "http://sim.test/repos/acme/widgets/commits/\(sha)")
            #expect(element["html_url"] as? String == "https://github.com/acme/widgets/commit/\(sha)")
            #expect(element["comments_url"] as? String == "http://sim.test/repos/acme/widgets/commits/\(sha)/comments")
            let commit = try #require(element["commit"] as? [String: Any])
            #expect(Set(commit.keys) == ["author", "committer", "message", "tree", "url", "comment_count", "verification"])
            let gitAuthor = try #require(commit["author"] as? [String: String])
            #expect(gitAuthor["date"]?.hasSuffix("Z") == true && gitAuthor["date"]?.count == 20)
            #expect(commit["comment_count"] as? Int == 0)
            let verification = try #require(commit["verification"] as? [String: Any])
            #expect(verification["verified"] as? Bool == false && verification["reason"] as? String == "unsigned")
            #expect(verification["signature"] is NSNull)
            #expect((commit["message"] as? String)?.hasSuffix("\n") == false)
            let tree = try #require(commit["tree"] as? [String: String])
            #expect(tree["url"] == "http://sim.test/repos/acme/widgets/git/trees/\(tree["sha"]!)")
            for role in ["author", "committer"] {
                if let user = element[role] as? [String: Any] {
                    #expect(Set(user.keys) == Set(Self.userKeys))
                    #expect(user["id"] is Int && user["site_admin"] as? Bool == false)
                    #expect(user["type"] as? String == "User")
                } else {
                    #expect(element[role] is NSNull)
                    sawNullAuthor = true
                }
            }
            let parents = try #require(element["parents"] as? [[String: String]])
            #expect(!parents.isEmpty)
            #expect(parents.allSatisfy { Set($0.keys) == ["sha", "url", "html_url"] })
        }
        #expect(sawNullAuthor)
    }

    @Test func commitNodeIDIsGitHubsMessagePackForm() {
        // Same bytes as the recorded PyGithub element: [0, 3544490, "0791cc7b…"].
        var buffer = ByteBuffer()
        let renderer = ElementRenderer(baseURL: "https://api.github.com", owner: "PyGithub", name: "PyGithub", repoID: 3_544_490)
        let person = PersonRecord(name: "n", email: "e", date: "2023-08-28T18:27:45Z", user: nil)
        renderer.writeElement(
            CommitRecord(
                sha: "0791cc7b1a706ab5d7c607ddff35de4d486ba3e9", parents: [], tree: "t", author: person, committer: person,
                message: "m"), into: &buffer)
        #expect(String(buffer: buffer).contains("\"node_id\":\"C_kwDOADYVqtoAKDA3OTFjYzdiMWE3MDZhYjVkN2M2MDdkZGZmMzVkZTRkNDg2YmEzZTk\""))
        #expect(SimUser(login: "EnricoMi", id: 44_700_269).nodeID == "MDQ6VXNlcjQ0NzAwMjY5")
    }

    @Test func usersAreDerivedFromEmailsDeterministically() {
        #expect(SimUser.derived(fromEmail: "noreply@github.com") == .webFlow)
        #expect(SimUser.derived(fromEmail: "123+octo-cat@users.noreply.github.com")?.login == "octo-cat")
        #expect(SimUser.derived(fromEmail: "Jane.Doe@example.com") == SimUser.derived(fromEmail: "jane.doe@example.com"))
        let emails = (0..<2_000).map { "person\($0)@example.com" }
        let without = emails.filter { SimUser.derived(fromEmail: $0) == nil }.count
        #expect((150...250).contains(without), "\(without) of 2000 emails have no account")
        #expect(SimUser.sanitizedLogin("a.b__c-") == "a-b-c")
    }
}

@Suite struct TimestampTests {
    @Test func parsesZuluOffsetsAndDateOnly() {
        #expect(Timestamp.parseISO8601("1970-01-01T00:00:00Z") == 0)
        #expect(Timestamp.parseISO8601("2026-08-21T21:58:33-04:00") == Timestamp.parseISO8601("2026-08-22T01:58:33Z"))
        #expect(Timestamp.parseISO8601("2011-01-20") == Timestamp.parseISO8601("2011-01-20T00:00:00Z"))
        #expect(Timestamp.parseISO8601("2011-01-20T00:00:00+01:00") == Timestamp.parseISO8601("2011-01-19T23:00:00Z"))
        #expect(Timestamp.parseISO8601("2011-01-20T00:00:00 01:00") == Timestamp.parseISO8601("2011-01-19T23:00:00Z"))
        #expect(Timestamp.parseISO8601("2011-01-20T00:00:00.123Z") == Timestamp.parseISO8601("2011-01-20T00:00:00Z"))
        #expect(Timestamp.parseISO8601("yesterday") == nil)
        #expect(Timestamp.parseISO8601("2011-13-01") == nil)
    }

    @Test func formatsUTCAndHTTPDates() {
        let t = Timestamp.parseISO8601("2023-08-28T18:27:45Z")!
        #expect(Timestamp.iso8601UTC(t) == "2023-08-28T18:27:45Z")
        #expect(Timestamp.httpDate(t) == "Mon, 28 Aug 2023 18:27:45 GMT")
        #expect(Timestamp.httpDate(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(Timestamp.iso8601UTC(Timestamp.parseISO8601("2000-02-29T23:59:59Z")!) == "2000-02-29T23:59:59Z")
    }
}
