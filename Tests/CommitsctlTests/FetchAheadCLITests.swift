import Foundation
import GitHubSim
import MirrorTestSupport
import Synchronization
import Testing

/// A first sync asks for page N+2 as soon as page N+1's response is in, while
/// N+1 is decoded (PrefetchedPage): still one request at a time, never a page
/// past the end, and a body that does not decode is asked for again, with
/// nothing lost or doubled. The real `commitsctl`
/// through `HostileGitHub`, which counts the requests it answers at once.
@Suite struct FetchAheadCLITests {
    static func history(commits: Int) -> SimRepository {
        SimRepository.widgets(id: 501, SyntheticSpec(commits: commits, authors: 40, mergeEvery: 6, seed: 7))
    }

    /// The page numbers of the listing requests, in the order they came.
    static func listingPages(_ proxy: HostileGitHub) -> [Int] {
        proxy.requests.filter(\.isListing).map { request in request.query["page"].flatMap { Int($0) } ?? 1 }
    }

    @Test func aBodyThatDoesNotDecodeIsAskedForAgainAndNothingIsLostOrAskedTwice() async throws {
        try await withRunning(HostileHarness.start(behind: 0, repository: Self.history(commits: 1_234))) { harness in
            let garbled = Mutex(false)
            harness.proxy.tamper { request, answer in
                guard request.isListing, request.query["page"] == "5", !garbled.withLock({ $0 }) else { return }
                garbled.withLock { $0 = true }
                answer.text = #"[{"sha": "0123"#  // a 200 whose body ends mid-element
            }
            let result = try await harness.sync()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("did not decode; asking for it again"), "\(result.stderr)")
            #expect(try harness.store.onBranchSHAs() == harness.reachable)
            #expect(harness.store.commitCount() == 1_234)

            let pages = Self.listingPages(harness.proxy)
            #expect(pages.filter { $0 == 5 }.count == 2, "\(pages)")
            #expect(Set(pages) == Set(1...13), "\(pages)")
            // Page 6 may have gone out before page 5's body was found unreadable, or after
            // page 5 was asked for again: either way it is asked for once.
            #expect(pages.count == 14, "every page once, page 5 twice: \(pages)")
            #expect(harness.proxy.mostRequestsAtOnce == 1)
        }
    }

    /// An exactly full last page links `next` to an empty page: fetching ahead
    /// never asks for it (the walk ends at the roots), as the walk alone never did.
    @Test func anExactlyFullLastPageCostsNoRequestForTheEmptyOne() async throws {
        try await withRunning(HostileHarness.start(behind: 0, repository: Self.history(commits: 1_200))) { harness in
            let result = try await harness.sync()
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.store.onBranchSHAs() == harness.reachable)
            let pages = Self.listingPages(harness.proxy)
            #expect(pages == Array(1...12), "\(pages)")
            #expect(harness.proxy.mostRequestsAtOnce == 1)
        }
    }
}
