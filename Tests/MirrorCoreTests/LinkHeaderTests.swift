import MirrorTestSupport
import Testing
@testable import MirrorCore

@Suite struct LinkHeaderTests {
    @Test func parsesGitHubsFirstPageLink() throws {
        let header =
            #"<https://api.github.com/repositories/3544490/commits?sha=release-v2-0&per_page=2&page=2>; rel="next", <https://api.github.com/repositories/3544490/commits?sha=release-v2-0&per_page=2&page=1044>; rel="last""#
        let link = try #require(LinkHeader(header))
        #expect(link.next == "https://api.github.com/repositories/3544490/commits?sha=release-v2-0&per_page=2&page=2")
        #expect(link.last?.hasSuffix("page=1044") == true)
        #expect(link.prev == nil)
    }

    @Test func relsInAnyOrder() throws {
        let header =
            #"<https://x/c?page=9>; rel="last", <https://x/c?page=3>; rel="next", <https://x/c?page=1>; rel="first", <https://x/c?page=1>; rel="prev""#
        let link = try #require(LinkHeader(header))
        #expect(link.next == "https://x/c?page=3")
        #expect(link.last == "https://x/c?page=9")
        #expect(link.first == "https://x/c?page=1")
        #expect(link.prev == "https://x/c?page=1")
    }

    /// A page number is one a history can have: a server's absurd one counts as none.
    @Test func pageNumbersBeyondAnyHistoryAreNone() {
        #expect(LinkHeader.pageNumber(of: "https://x/c?per_page=100&page=1044") == 1044)
        #expect(LinkHeader.pageNumber(of: "https://x/c?page=100000000") == 100_000_000)
        for absurd in ["100000001", "9223372036854775807", "99999999999999999999", "0", "-1", "-9223372036854775808", "x"] {
            #expect(LinkHeader.pageNumber(of: "https://x/c?page=\(absurd)") == nil, "\(absurd)")
        }
    }

    @Test func lastPageHasNoNext() throws {
        let link = try #require(LinkHeader(#"<https://x/c?page=4>; rel="prev", <https://x/c?page=1>; rel="first""#))
        #expect(link.next == nil)
    }

    @Test func toleratesUnquotedAndMultiValuedRelsAndExtraParameters() throws {
        let link = try #require(LinkHeader(#"<https://x/a>; title="a, b"; rel=next, <https://x/b>; rel="last  first""#))
        #expect(link.next == "https://x/a")
        #expect(link.last == "https://x/b")
        #expect(link.first == "https://x/b")
    }

    @Test(arguments: ["garbage", "<unterminated; rel=\"next\"", "https://x/c; rel=\"next\""])
    func garbageIsRejected(header: String) {
        #expect(LinkHeader(header) == nil)
    }

    @Test func emptyHeaderHasNoLinks() throws {
        #expect(try #require(LinkHeader("")).targets.isEmpty)
    }
}
