import Curl
import Foundation
import MirrorTestSupport
import Synchronization
import Testing

@testable import MirrorCore

/// PrefetchedPage's chain with scripted sources: when the page after a page is
/// asked for, and what happens to it. (The same over loopback, through the real
/// client and a lying server: FetchAheadCLITests.)
@Suite struct PrefetchedPageTests {
    /// Scripted pages: what was asked for, in order, and each page's links.
    final class Script: Sendable {
        let events = Mutex<[String]>([])
        let garbled: Set<String>
        /// Pages whose request never ends until it is cancelled.
        let held: Set<Int>

        init(garbled: Set<String> = [], held: Set<Int> = []) {
            self.garbled = garbled
            self.held = held
        }

        func record(_ event: String) { events.withLock { $0.append(event) } }
        func saw(_ event: String) -> Bool { events.withLock { $0.contains(event) } }

        /// Page N links `next` to N+1 and `last` to 9.
        func received(_ url: String) -> GitHubClient.ReceivedCommitsPage {
            let number = LinkHeader.pageNumber(of: url) ?? 1
            let links = "<\(Self.url(number + 1))>; rel=\"next\", <\(Self.url(9))>; rel=\"last\""
            let body = garbled.contains(url) ? "[{\"sha\": \"01" : "[]"
            return try! GitHubClient.ReceivedCommitsPage(
                HTTPResponse(status: 200, headers: [("link", links)], body: Array(body.utf8)), redact: { $0 })
        }

        static func url(_ page: Int) -> String { "http://127.0.0.1:1/repositories/1/commits?page=\(page)" }

        func source(decode: (@Sendable (GitHubClient.ReceivedCommitsPage) throws -> GitHubClient.CommitsPage)? = nil)
            -> PrefetchedPage.Source
        {
            var source = PrefetchedPage.Source(
                receive: { url in
                    let number = LinkHeader.pageNumber(of: url) ?? 1
                    self.record("receive \(number)")
                    if self.held.contains(number) {
                        await waitUntil(timeout: .seconds(60)) { Task.isCancelled }
                        self.record("cancelled \(number)")
                        throw CancellationError()
                    }
                    return self.received(url)
                },
                page: { url in
                    self.record("again \(LinkHeader.pageNumber(of: url) ?? 1)")
                    return GitHubClient.CommitsPage(commits: [], links: nil, lastPageNumber: nil)
                })
            if let decode { source.decode = decode }
            return source
        }
    }

    /// The walk's allowance for page 2 onwards: `next`, whatever it names.
    static let followNext: PrefetchedPage.NextAllowance = { links, _ in links?.next }

    @Test func theNextPageIsAskedForWhileThisOneIsDecoded() async throws {
        let script = Script()
        let sawNextWhileDecoding = Mutex(false)
        let source = script.source(decode: { received in
            // Page 3's request must go out before page 2's body is decoded.
            if received.links?.next == Script.url(3) {
                sawNextWhileDecoding.withLock { $0 = waitUntilBlocking { script.saw("receive 3") } }
            }
            return try received.decoded()
        })
        let page = PrefetchedPage(url: Script.url(2), source: source)
        page.allowNext(Self.followNext)
        _ = try await page.value
        #expect(sawNextWhileDecoding.withLock { $0 })
        let next = try #require(page.takeNext(ifFor: Script.url(3)))
        _ = try await next.value
        #expect(script.events.withLock { $0 } == ["receive 2", "receive 3"])
    }

    @Test func aPageAllowedAfterItsResponseAsksForTheNextAtOnce() async throws {
        let script = Script()
        let page = PrefetchedPage(url: Script.url(2), source: script.source())
        _ = try await page.value
        #expect(script.events.withLock { $0 } == ["receive 2"])
        page.allowNext(Self.followNext)
        let next = try #require(page.takeNext(ifFor: Script.url(3)))
        _ = try await next.value
        #expect(script.events.withLock { $0 } == ["receive 2", "receive 3"])
    }

    @Test func nothingIsAskedForUnlessTheWalkAllowsIt() async throws {
        let script = Script()
        let unallowed = PrefetchedPage(url: Script.url(2), source: script.source())
        _ = try await unallowed.value
        let refused = PrefetchedPage(url: Script.url(5), source: script.source())
        refused.allowNext { _, _ in nil }
        _ = try await refused.value
        #expect(unallowed.takeNext(ifFor: Script.url(3)) == nil)
        #expect(refused.takeNext(ifFor: Script.url(6)) == nil)
        #expect(script.events.withLock { $0 } == ["receive 2", "receive 5"])
    }

    @Test func aBodyThatDoesNotDecodeIsAskedForAgainAndStartsNothingMore() async throws {
        let script = Script(garbled: [Script.url(2)])
        let page = PrefetchedPage(url: Script.url(2), source: script.source())
        _ = try await page.value
        page.allowNext(Self.followNext)
        #expect(page.takeNext(ifFor: Script.url(3)) == nil)
        #expect(script.events.withLock { $0 } == ["receive 2", "again 2"])
    }

    @Test func aPageStartedForAnotherURLThanTheWalkWantsIsCancelled() async throws {
        let script = Script(held: [3])
        let page = PrefetchedPage(url: Script.url(2), source: script.source())
        page.allowNext(Self.followNext)
        _ = try await page.value
        #expect(await waitUntil { script.saw("receive 3") })
        #expect(page.takeNext(ifFor: Script.url(7)) == nil)
        #expect(await waitUntil { script.saw("cancelled 3") })
    }

    @Test func cancellingAPageCancelsThePageItStarted() async throws {
        let script = Script(held: [3])
        let page = PrefetchedPage(url: Script.url(2), source: script.source())
        page.allowNext(Self.followNext)
        _ = try await page.value
        #expect(await waitUntil { script.saw("receive 3") })
        page.cancel()
        #expect(await waitUntil { script.saw("cancelled 3") })
        #expect(page.takeNext(ifFor: Script.url(3)) == nil)
    }

    /// Allowed three pages ahead, page 2 starts 3, which starts 4, which starts 5,
    /// each once the one before has its response, and 5 starts nothing; allowed
    /// again when the walk takes 3, the chain reaches 6, still one at a time.
    @Test func aPageAllowedPagesAheadStartsThemOneAfterAnother() async throws {
        let script = Script()
        let page = PrefetchedPage(url: Script.url(2), source: script.source())
        page.allowNext(Self.followNext, ahead: 3)
        _ = try await page.value
        #expect(await waitUntil { script.saw("receive 5") })
        try await Task.sleep(for: .milliseconds(50))
        #expect(script.events.withLock { $0 } == ["receive 2", "receive 3", "receive 4", "receive 5"])
        let third = try #require(page.takeNext(ifFor: Script.url(3)))
        _ = try await third.value
        third.allowNext(Self.followNext, ahead: 3)
        #expect(await waitUntil { script.saw("receive 6") })
        try await Task.sleep(for: .milliseconds(50))
        #expect(script.events.withLock { $0 } == ["receive 2", "receive 3", "receive 4", "receive 5", "receive 6"])
        third.cancel()
    }

    @Test func anArrivalWakesItsWaiterAndALimitEndsTheWait() async {
        let arrival = Arrival()
        #expect(await arrival.wait(upTo: .milliseconds(1)) == false)
        let waiting = Task { await arrival.wait(upTo: .seconds(600)) }
        #expect(await waitUntil { arrival.hasWaiters })
        arrival.arrive()
        #expect(await waiting.value)
        #expect(await arrival.wait(upTo: .zero))
    }

    @Test func aCancelledWaitEndsWithoutTheArrival() async {
        let arrival = Arrival()
        let waiting = Task { await arrival.wait(upTo: .seconds(600)) }
        #expect(await waitUntil { arrival.hasWaiters })
        waiting.cancel()
        #expect(await waiting.value == false)
    }
}
