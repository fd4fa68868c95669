import Synchronization

/// A page fetched ahead while the previous one is stored, and whether it has
/// arrived: the engine commits its open batch rather than wait long for one.
///
/// Once the walk allows it (`allowNext`), the page also starts the request for
/// the page after it as soon as its own response (and so its `Link`) is in,
/// before its body is decoded: decoding a page of 100 commits then overlaps
/// the next request instead of coming between the two.
/// Allowed more than one page ahead, the page it starts does the same in turn,
/// so requests keep going while the walk stores a batch. Still one request at a
/// time (each starts once the one before has its response; the HTTP client
/// serialises transfers); a body that does not decode is asked for again after
/// the page started early.
final class PrefetchedPage: Sendable {
    /// How the pages are fetched: received (links read, body not decoded) then
    /// decoded, or whole through the path that retries.
    struct Source: Sendable {
        let receive: @Sendable (_ url: String) async throws -> GitHubClient.ReceivedCommitsPage
        var decode: @Sendable (GitHubClient.ReceivedCommitsPage) throws -> GitHubClient.CommitsPage = { try $0.decoded() }
        let page: @Sendable (_ url: String) async throws -> GitHubClient.CommitsPage
    }

    /// The walk's word on the page after a page: given that page's links and its
    /// URL, the URL it may request now, or nil.
    typealias NextAllowance = @Sendable (_ links: LinkHeader?, _ pageURL: String) -> String?

    let url: String
    private let task: Task<GitHubClient.CommitsPage, any Error>
    private let chain: Chain

    init(url: String, source: Source) {
        self.url = url
        let chain = Chain(url: url, source: source)
        self.chain = chain
        task = Task {
            defer { chain.arrival.arrive() }
            let received = try await source.receive(url)
            chain.received(received.links)
            do {
                return try source.decode(received)
            } catch {
                // A truncated or garbled body: asked for again, through the path that
                // retries; the page started early stays for the walk to take if the
                // answer links to it again.
                chain.withdraw()
                return try await source.page(url)
            }
        }
    }

    /// Whether the page arrives within `limit`: woken as it arrives, not polled,
    /// since even a millisecond's poll slows a long sync measurably.
    func arrives(within limit: Duration) async -> Bool {
        await chain.arrival.wait(upTo: limit)
    }

    /// The page; the fetch is an unstructured task, so our cancellation is passed on to it.
    var value: GitHubClient.CommitsPage {
        get async throws {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: { [task] in
                task.cancel()
            }
        }
    }

    /// Lets the page start the next one's request once its response is in (now,
    /// if it is), to the URL `allowance` names; with `ahead` above one, lets that
    /// page do the same with `ahead - 1`, and so on: `ahead` pages past this one at
    /// most, counted again from here each time the walk allows.
    func allowNext(_ allowance: @escaping NextAllowance, ahead: Int = 1) {
        guard ahead > 0 else { return }
        chain.allow(allowance, ahead: ahead)
    }

    /// The page started after this one, when it is for `url`; any other (or one
    /// the walk no longer wants, `url` nil) is cancelled.
    func takeNext(ifFor url: String?) -> PrefetchedPage? {
        guard let next = chain.takeNext() else { return nil }
        guard next.url == url else {
            next.cancel()
            return nil
        }
        return next
    }

    /// Cancels the fetch, and the next page's if this one started it.
    func cancel() {
        task.cancel()
        chain.cancel()
    }

    /// What a page knows of the page after it; shared with its fetching task.
    private final class Chain: Sendable {
        let arrival = Arrival()
        private let source: Source
        private let state = Mutex(State())

        private struct State {
            /// This page's links, once its response is in.
            var links: LinkHeader??
            var allowance: NextAllowance?
            /// How many pages past this one the allowance reaches.
            var ahead = 0
            var next: PrefetchedPage?
            /// True once the next page may no longer be started: taken, cancelled or withdrawn.
            var closed = false
        }

        init(url: String, source: Source) {
            self.url = url
            self.source = source
        }

        private let url: String

        func received(_ links: LinkHeader?) {
            startNextIfAllowed { $0.links = .some(links) }
        }

        func allow(_ allowance: @escaping NextAllowance, ahead: Int) {
            startNextIfAllowed {
                $0.allowance = allowance
                $0.ahead = ahead
            }
        }

        /// Applies `change`, then starts the next page if its response is in, the
        /// walk allows one and none was started. Started inside the lock, so a
        /// concurrent `withdraw` or `cancel` either sees it or prevents it. The
        /// next page, started now or before, is then allowed what is left of `ahead`.
        private func startNextIfAllowed(_ change: (inout State) -> Void) {
            let passedOn = state.withLock { state -> (PrefetchedPage, NextAllowance, Int)? in
                change(&state)
                if !state.closed, state.next == nil, let links = state.links, let allowance = state.allowance,
                    let next = allowance(links, url)
                {
                    state.next = PrefetchedPage(url: next, source: source)
                }
                guard !state.closed, let next = state.next, let allowance = state.allowance, state.ahead > 1 else { return nil }
                return (next, allowance, state.ahead - 1)
            }
            if let (next, allowance, ahead) = passedOn { next.allowNext(allowance, ahead: ahead) }
        }

        /// Starts no next page: the links it would follow came with a body that did not decode.
        func withdraw() {
            state.withLock { $0.closed = true }
        }

        func takeNext() -> PrefetchedPage? {
            state.withLock { state in
                state.closed = true
                defer { state.next = nil }
                return state.next
            }
        }

        func cancel() {
            takeNext()?.cancel()
        }
    }
}
