/// How fast a git fetch must go for the history to be worth waiting for.
/// libcurl's own stall limit (under 1 byte/s) counts every byte,
/// so a server that keeps the connection busy with progress messages, or
/// trickles the pack a byte at a time, would hold a first sync for as long as
/// the whole-request timeout. These bounds count what matters, the pack's own
/// bytes (side band 1); progress (band 2) never counts as liveness, and its
/// rate is bounded too. A fetch that fails them is `fetchTooSlow`: the sync
/// goes on over REST.
///
/// The defaults let a slow but real server through: about 1 KiB/s of pack,
/// two minutes for the server to start the pack (git sends keep-alive packets
/// meanwhile, which count as nothing), and a deadline well above what the
/// history's size needs at a modest rate.
public struct GitFetchPace: Sendable, Equatable {
    /// From the fetch request until the pack's first byte (git sends the
    /// `packfile` line at once, then keep-alives while it prepares the pack).
    public var packStart: Duration = .seconds(120)
    /// Once the pack's first byte came, each window of this length must bring
    /// `minimumPackBytesPerWindow` bytes of pack.
    public var window: Duration = .seconds(15)
    public var minimumPackBytesPerWindow = 16 << 10
    /// Progress messages (band 2) allowed per window: the fetch asks for
    /// none (`no-progress`), so a stream of them is a server that stalls.
    public var maximumProgressPerWindow = 200

    /// The whole fetch's deadline (from its first request): `deadlineFloor`,
    /// plus the time the expected history takes at `deadlineRate`, at most `deadlineCap`.
    public var deadlineFloor: Duration = .seconds(180)
    public var deadlineCap: Duration = .seconds(1800)
    /// Bytes a second the deadline allows for the pack (a slow link).
    public var deadlineRate = 256 << 10
    /// Pack bytes a commit is allowed for the deadline: generous, as real
    /// messages are longer than most (github-sim's synthetic ones take ~270).
    public static let packBytesPerCommit = 600

    public init() {}

    /// The deadline for a history of `expectedCommits` (unknown: the cap).
    public func deadline(expectedCommits: Int?) -> Duration {
        guard let expectedCommits else { return deadlineCap }
        let bytes = Double(max(0, expectedCommits)) * Double(Self.packBytesPerCommit)
        let seconds = bytes / Double(max(1, deadlineRate))
        guard seconds < deadlineCap.inSeconds else { return deadlineCap }
        return min(deadlineCap, deadlineFloor + .seconds(seconds))
    }
}

/// Applies a `GitFetchPace` to one fetch response as it arrives; every check
/// runs when bytes come in (libcurl's stall limit ends a silent connection, and
/// the request's timeout is the deadline).
struct FetchPaceWatch {
    let pace: GitFetchPace
    /// When the whole fetch must be over, and how long that allowed it.
    let deadline: ContinuousClock.Instant
    let allowed: Duration
    private let requested: ContinuousClock.Instant
    private var windowStart: ContinuousClock.Instant?
    private var packBytesInWindow = 0
    private var progressInWindow = 0
    private var progressWindowStart: ContinuousClock.Instant

    init(pace: GitFetchPace, deadline: ContinuousClock.Instant, allowed: Duration, now: ContinuousClock.Instant = .now) {
        self.pace = pace
        self.deadline = deadline
        self.allowed = allowed
        requested = now
        progressWindowStart = now
    }

    /// The pack's first byte came: the pack windows start.
    mutating func packBegan(now: ContinuousClock.Instant = .now) {
        if windowStart == nil { windowStart = now }
    }

    mutating func pack(_ count: Int) {
        packBytesInWindow += count
    }

    mutating func progress(now: ContinuousClock.Instant = .now) throws {
        if now - progressWindowStart >= pace.window {
            progressWindowStart = now
            progressInWindow = 0
        }
        progressInWindow += 1
        guard progressInWindow <= pace.maximumProgressPerWindow else {
            throw GitError.fetchTooSlow(
                "over \(pace.maximumProgressPerWindow) progress messages in \(Self.shown(pace.window)), which the fetch asked not to get")
        }
    }

    /// Throws once a bound is missed.
    mutating func check(now: ContinuousClock.Instant = .now) throws {
        guard now < deadline else {
            throw GitError.fetchTooSlow("the fetch ran past the \(Self.shown(allowed)) this history's size allows")
        }
        guard let start = windowStart else {
            guard now - requested < pace.packStart else {
                throw GitError.fetchTooSlow("the pack did not begin within \(Self.shown(pace.packStart))")
            }
            return
        }
        guard now - start >= pace.window else { return }
        guard packBytesInWindow >= pace.minimumPackBytesPerWindow else {
            throw GitError.fetchTooSlow(
                "\(packBytesInWindow) bytes of pack in \(Self.shown(pace.window)), fewer than the \(pace.minimumPackBytesPerWindow) required"
            )
        }
        windowStart = now
        packBytesInWindow = 0
    }

    private static func shown(_ duration: Duration) -> String {
        let seconds = duration.inSeconds
        return seconds >= 1 ? "\(Int(seconds.rounded())) s" : "\(Int((seconds * 1000).rounded())) ms"
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
