// Injected failures. Counters count list-commits requests only, 1-based, from the last `setFaults`;
// a git fault applies to every git request.

/// Which failures to inject; all nil/zero means none.
public struct FaultPlan: Sendable, Equatable {
    /// Every n-th list request gets a 502 with an HTML body.
    public var serverErrorEvery: Int?
    /// Every n-th list request declares its full Content-Length, sends about half the body, then closes.
    public var truncateEvery: Int?
    /// Every n-th list request has its connection closed without any response.
    public var resetEvery: Int?
    /// Every n-th list request gets a secondary-rate-limit 403 with `retry-after: 1`.
    public var secondaryLimitEvery: Int?
    /// Added before each list-commits response.
    public var delay: Duration = .zero
    /// From this list request on (1-based), `slowDelay` replaces `delay`: a walk a
    /// test acts on is then certainly in the middle of a request, however loaded the machine.
    public var slowFrom: Int?
    public var slowDelay: Duration = .zero
    /// From this list request on (1-based), no answer comes until the plan is replaced
    /// (`setFaults`): the walk waits for its page, however long the test takes to act.
    public var holdFrom: Int?
    /// With `holdFrom`: only this repository's list requests (by GitHub id, whether
    /// asked by name or by id) are counted and held; the others are answered.
    public var holdRepository: Int?
    /// How the git endpoints misbehave, for every git request while set.
    public var git: GitFault?
    /// Branch names every branch listing (`GET …/branches`) leaves out, its pages computed
    /// without them, while every other endpoint still serves them: what a client sees when a
    /// listing's pages shift as it reads them (a branch deleted between two pages moves the
    /// next page's first branch onto the page already read), made deterministic.
    public var branchListingOmits: Set<String> = []
    /// App mode: every `POST /app/installations/{id}/access_tokens` waits, unanswered, until
    /// the plan is replaced (`HeldResponses`): a credential endpoint that hangs.
    public var holdAccessTokens = false
    /// Tags no honest repository has, added to every tag listing, git's and REST's (HostileTags.swift).
    public var hostileTags: Set<HostileTag> = []
    /// Ways the pull request listing lies (`HostilePull`).
    public var hostilePulls: Set<HostilePull> = []

    public init() {}

    /// The delay before the n-th list request's response (1-based).
    func delay(forListRequest n: Int) -> Duration {
        guard let slowFrom, n >= slowFrom else { return delay }
        return slowDelay
    }

    /// Whether the n-th list request's response waits for the plan to be replaced (1-based).
    func holds(listRequest n: Int) -> Bool {
        guard let holdFrom else { return false }
        return n >= holdFrom
    }

    /// The list requests counted since a plan was set, and what the next one gets.
    struct Counters {
        private var listRequests = 0
        private var heldRepositoryRequests = 0

        /// Counts a list request for `repositoryID` and says what it gets under `plan`.
        mutating func next(repositoryID: Int?, under plan: FaultPlan) -> (fault: InjectedFault?, delay: Duration, holds: Bool) {
            listRequests += 1
            var holds = plan.holds(listRequest: listRequests)
            if let heldRepository = plan.holdRepository {
                holds = false
                if repositoryID == heldRepository {
                    heldRepositoryRequests += 1
                    holds = plan.holds(listRequest: heldRepositoryRequests)
                }
            }
            return (plan.fault(forListRequest: listRequests), plan.delay(forListRequest: listRequests), holds)
        }
    }

    /// The fault for the n-th list request (1-based). When several fire at once the most
    /// disruptive wins, so a test that asks for resets always sees them.
    func fault(forListRequest n: Int) -> InjectedFault? {
        func fires(_ every: Int?) -> Bool {
            guard let every, every > 0 else { return false }
            return n % every == 0
        }
        if fires(resetEvery) { return .reset }
        if fires(serverErrorEvery) { return .serverError }
        if fires(secondaryLimitEvery) { return .secondaryLimit }
        if fires(truncateEvery) { return .truncate }
        return nil
    }
}

/// A way `GET …/pulls` misbehaves (`FaultPlan.hostilePulls`), by the name the control endpoint takes.
public enum HostilePull: String, Sendable, CaseIterable {
    /// Page 3's `Link` says its next page is page 2, so a client following `next` goes round forever.
    case loopingPages = "looping-pages"
    /// The newest pull request names, as its head and merge commit, a commit of another repository.
    case foreignCommit = "foreign-commit"
}

enum InjectedFault: Sendable {
    case reset, serverError, secondaryLimit, truncate
}

/// A way the smart HTTP endpoints can fail (docs/GIT-PROTOCOL.md, "What github-sim serves").
public enum GitFault: String, Sendable, CaseIterable {
    /// The fetch response ends halfway through the pack.
    case truncatedPack = "truncated-pack"
    /// The pack's trailing SHA-1 is wrong.
    case badPackChecksum = "bad-pack-checksum"
    /// Halfway through the pack, a side-band 3 (fatal error) message, then the end.
    case sideBandError = "side-band-error"
    /// `Git-Protocol` is ignored: info/refs answers a protocol v0 ref advertisement.
    case protocolV0Only = "protocol-v0-only"
    /// Every git request answers 401, whatever credentials it carries.
    case unauthorized = "unauthorized"
    /// The pack's newest commit is altered, so the pack lacks the tip ls-refs announced.
    case alteredCommit = "altered-commit"
    /// After the `packfile` line and the pack's 12-byte header, 1 KiB of side-band 2 (progress)
    /// every 50 ms, forever: the connection stays busy, no more of the pack comes.
    case endlessProgress = "endless-progress"
    /// The pack, one byte per side-band 1 packet every half second.
    case trickledPack = "trickled-pack"
    /// Like `side-band-error`, but the band 3 message echoes the request's `Authorization`
    /// header and the token in it, as a careless server's error page might.
    case echoedErrorBand = "echoed-error-band"
}
