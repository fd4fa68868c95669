import MirrorTestSupport
import Testing
@testable import GitHubSim
import Foundation

@Suite struct LinkBuilderTests {
    let base = "http://sim.test/repositories/7/commits"

    func rels(_ header: String?) -> [String] {
        guard let header else { return [] }
        return header.components(separatedBy: ", ").map { $0.components(separatedBy: "rel=\"")[1].dropLast().description }
    }

    @Test func firstPageHasNextAndLastWithTheCallersQueryInOrder() {
        let header = LinkBuilder.header(base: base, rawQuery: "sha=release-v2-0&per_page=2", page: 1, total: 2_087, perPage: 2)
        #expect(
            header
                == "<http://sim.test/repositories/7/commits?sha=release-v2-0&per_page=2&page=2>; rel=\"next\", <http://sim.test/repositories/7/commits?sha=release-v2-0&per_page=2&page=1044>; rel=\"last\""
        )
    }

    @Test func middlePageHasPrevNextLastFirst() {
        let header = LinkBuilder.header(base: base, rawQuery: "page=3&per_page=10", page: 3, total: 95, perPage: 10)
        #expect(rels(header) == ["prev", "next", "last", "first"])
        #expect(header?.contains("<\(base)?per_page=10&page=2>; rel=\"prev\"") == true)
        #expect(header?.contains("<\(base)?per_page=10&page=10>; rel=\"last\"") == true)
        #expect(header?.contains("<\(base)?per_page=10&page=1>; rel=\"first\"") == true)
    }

    @Test func lastPageHasPrevAndFirst() {
        let header = LinkBuilder.header(base: base, rawQuery: "per_page=10&page=10", page: 10, total: 95, perPage: 10)
        #expect(rels(header) == ["prev", "first"])
    }

    @Test func singlePageThatIsNotFullHasNoLink() {
        #expect(LinkBuilder.header(base: base, rawQuery: nil, page: 1, total: 29, perPage: 30) == nil)
        #expect(LinkBuilder.header(base: base, rawQuery: nil, page: 1, total: 0, perPage: 30) == nil)
    }

    @Test func exactlyFullPageStillAdvertisesAnEmptyNextPage() {
        let first = LinkBuilder.header(base: base, rawQuery: nil, page: 1, total: 30, perPage: 30)
        #expect(first == "<\(base)?page=2>; rel=\"next\", <\(base)?page=2>; rel=\"last\"")
        let empty = LinkBuilder.header(base: base, rawQuery: nil, page: 2, total: 30, perPage: 30)
        #expect(rels(empty) == ["prev", "first"])
        #expect(LinkBuilder.lastPage(total: 60, perPage: 30) == 3)
        #expect(LinkBuilder.lastPage(total: 61, perPage: 30) == 3)
    }

    @Test func pastTheEndPointsBackAtTheLastPage() {
        let header = LinkBuilder.header(base: base, rawQuery: "per_page=10&page=50", page: 50, total: 95, perPage: 10)
        #expect(
            header
                == "<\(base)?per_page=10&page=10>; rel=\"prev\", <\(base)?per_page=10&page=10>; rel=\"last\", <\(base)?per_page=10&page=1>; rel=\"first\""
        )
    }

    @Test func onlyThePageParameterIsDroppedAndOthersKeepTheirEncoding() {
        let header = LinkBuilder.header(
            base: base, rawQuery: "page=2&since=2020-01-01T00%3A00%3A00Z&pages=x&per_page=5", page: 2, total: 100, perPage: 5)
        #expect(header?.hasPrefix("<\(base)?since=2020-01-01T00%3A00%3A00Z&pages=x&per_page=5&page=1>; rel=\"prev\"") == true)
    }
}
