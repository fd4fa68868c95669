import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// What the daemon's loop asks of its queue beyond claims and leases, on both
/// drivers: due times from the results of a claim's syncs, first syncs kept
/// to their lanes, and a target another process holds.
@Suite struct SyncLeasesPlanningTests {
    typealias Driver = SyncLeasesContractTests.Driver
    typealias QueueUnderTest = SyncLeasesContractTests.QueueUnderTest
    static let minute: Duration = .seconds(60)
    static let hour: Duration = .seconds(3_600)
    static func target(_ name: String) -> SyncTarget { SyncLeasesContractTests.target(name) }

    @Test func theNextSlotIsOnTheGridAfterNowSkippingWhatALongSyncOverran() {
        let start = ContinuousClock.now
        let minute = Self.minute
        #expect(SyncResult.nextSlot(after: start, interval: minute, now: start + .seconds(5)) == start + minute)
        #expect(SyncResult.nextSlot(after: start, interval: minute, now: start + minute) == start + minute * 2)
        #expect(SyncResult.nextSlot(after: start, interval: minute, now: start + .seconds(150)) == start + minute * 3)
        #expect(SyncResult.nextSlot(after: start, interval: .zero, now: start + .seconds(5)) == start + .seconds(5))
    }

    @Test func resultsSetTheDueTimeTheSoonestOfThemWins() {
        let fixed = PollingPolicy.fixed(Self.hour)
        let adaptive = PollingPolicy.adaptive(minimum: Self.minute, maximum: .seconds(86_400))
        #expect(SyncResult(policy: fixed, ending: .stepEnded).dueIn == .zero)
        #expect(SyncResult(policy: fixed, ending: .interrupted).dueIn == .zero)
        #expect(SyncResult(policy: fixed, ending: .resumesIn(.seconds(30))).dueIn == .seconds(30))
        #expect(SyncResult(policy: fixed, ending: .resumesIn(.seconds(-3))).dueIn == .zero)
        #expect(SyncResult(policy: adaptive, ending: .attempted).dueIn == Self.minute)
        let quiet = PollActivity(head: "a", headAge: .seconds(7_200))
        #expect(SyncResult(policy: adaptive, ending: .polled(quiet, moved: false)).dueIn == Self.hour)
        #expect(SyncResult(policy: adaptive, ending: .polled(quiet, moved: true)).dueIn == Self.minute, "pushes come in bursts")
        #expect(SyncResult(policy: adaptive, ending: .polled(nil, moved: false)).dueIn == Self.minute, "unknown: soon")
        let results = [
            SyncResult(policy: fixed, ending: .polled(quiet, moved: false)),
            SyncResult(policy: adaptive, ending: .polled(quiet, moved: true)),
        ]
        #expect(SyncResult.interval(after: results) == Self.minute, "the shortest: the branch that moved")
        #expect(SyncResult.interval(after: results + [SyncResult(policy: fixed, ending: .stepEnded)]) == nil)
        #expect(SyncResult.interval(after: []) == nil)
        #expect(SyncResult.dueIn(after: results + [SyncResult(policy: fixed, ending: .stepEnded)]) == .zero)
        #expect(SyncResult.dueIn(after: []) == nil)
    }

    @Test(arguments: Driver.allCases)
    func aReleaseAfterResultsMakesTheTargetDueWhenTheySay(_ driver: Driver) async throws {
        let queue = try await QueueUnderTest(driver)
        let (walked, polled) = (Self.target("walked"), Self.target("polled"))
        let leases = try queue.claimer(knowing: [walked, polled])
        let held = try SyncLeasesContractTests.claimAll(leases)
        let policy = PollingPolicy.fixed(Self.hour)
        try leases.release(
            try #require(held[walked]), after: [SyncResult(policy: policy, ending: .stepEnded)], otherwise: Self.hour)
        let activity = PollActivity(head: "abc", headAge: .seconds(10))
        try leases.release(
            try #require(held[polled]), after: [SyncResult(policy: policy, ending: .polled(activity, moved: false))],
            otherwise: .zero)
        let again = try leases.claimDue(owner: "one", limit: 5, duration: Self.minute)
        #expect(again.map(\.target) == [walked], "a step's walk resumes at once, a poll waits its interval")
        try leases.release(try #require(again.first), after: [], otherwise: Self.hour)
        #expect(try leases.claimDue(owner: "one", limit: 5, duration: Self.minute).isEmpty, "no result: `otherwise`")
    }

    /// A poll's interval counts on the target's grid, from the due time it was claimed at:
    /// however late it was claimed and long it took, the next one is an interval after the last was due.
    @Test(arguments: Driver.allCases)
    func aPollIsDueAnIntervalAfterItsClaimedDueTime(_ driver: Driver) async throws {
        let queue = try await QueueUnderTest(driver)
        let widgets = Self.target("widgets")
        let leases = try queue.claimer(knowing: [widgets])
        try await Task.sleep(for: .milliseconds(1_200))  // claimed late, as when every lane was busy
        let claimed = try #require(try leases.claimDue(owner: "one", limit: 1, duration: Self.minute).first)
        let interval = Self.minute
        let polled = SyncResult(policy: .fixed(interval), ending: .polled(PollActivity(head: "a", headAge: nil), moved: false))
        try leases.release(claimed, after: [polled], otherwise: Self.hour)
        // Read at once: a wait for the claim itself would measure how busy the machine is.
        let dueIn: Duration
        switch driver {
        case .sqlite:
            dueIn = leases.nextClaimable(within: Self.hour)
        case .postgreSQL:
            let database = String(queue.location.description.split(separator: "/").last ?? "")
            let rows = try await PostgreSQLServer.shared().execute(
                "SELECT extract(epoch FROM due_at - now())::float8 FROM sync_leases", database: database)
            dueIn = .milliseconds(Int64((Double(try #require(rows.first?.first ?? nil)) ?? -1) * 1_000))
        }
        #expect(dueIn > .zero && dueIn < interval - .seconds(1), "an interval from its due time, not from the release: \(dueIn)")
    }

    /// On one host the queue knows which targets synced before: at most
    /// `firstSyncLimit` first syncs are held at once, polls take the other lanes;
    /// a database's queue holds no sync state and claims by due time alone.
    @Test(arguments: Driver.allCases)
    func firstSyncsKeepToTheirLanesWhereTheQueueKnowsThem(_ driver: Driver) async throws {
        let queue = try await QueueUnderTest(driver)
        let leases = try queue.location.openSyncLeases()
        let (new1, new2, old) = (Self.target("a-new"), Self.target("b-new"), Self.target("c-old"))
        let policy = PollingPolicy.fixed(Self.hour)
        try leases.follow([
            SyncTargetPlan(target: new1, policy: policy, hasSynced: false),
            SyncTargetPlan(target: new2, policy: policy, hasSynced: false),
            SyncTargetPlan(target: old, policy: policy, hasSynced: true),
        ])
        if driver == .sqlite {
            // Synced before, the old one is spread over its interval: at index 2 of 3, two thirds in.
            #expect(leases.nextClaimable(within: Self.minute) == .zero)
            let round = try leases.claimDue(owner: "one", limit: 2, firstSyncLimit: 1, duration: Self.minute)
            #expect(round.claimed.map(\.target) == [new1])
            #expect(try leases.claimDue(owner: "one", limit: 2, firstSyncLimit: 1, duration: Self.minute).claimed.isEmpty)
            #expect(leases.nextClaimable(within: Self.minute) == Self.minute, "the second first sync waits for the lane")
            try leases.release(try #require(round.claimed.first), after: [], otherwise: Self.hour)
            let next = try leases.claimDue(owner: "one", limit: 2, firstSyncLimit: 1, duration: Self.minute)
            #expect(next.claimed.map(\.target) == [new2])
        } else {
            #expect(leases.nextClaimable(within: Self.minute) == Self.minute, "a shared queue is asked again")
            let round = try leases.claimDue(owner: "one", limit: 3, firstSyncLimit: 1, duration: Self.minute)
            #expect(Set(round.claimed.map(\.target)) == [new1, new2, old])
        }
    }

    /// A target another process holds (`commitsctl sync`) is not handed out:
    /// on one host it is returned as busy with its holder and put off to its
    /// interval, so the loop logs it once rather than at every claim.
    @Test(arguments: Driver.allCases)
    func aTargetAnotherProcessHoldsIsSkipped(_ driver: Driver) async throws {
        let queue = try await QueueUnderTest(driver)
        let widgets = Self.target("widgets")
        let leases = try queue.location.openSyncLeases()
        try leases.follow([SyncTargetPlan(target: widgets, policy: .fixed(Self.hour), hasSynced: true)])
        let claim = try RepositoryLock.acquire(store: queue.location, repository: widgets.repository, holder: "commitsctl sync")
        let round = try leases.claimDue(owner: "daemon", limit: 2, firstSyncLimit: 1, duration: Self.minute)
        #expect(round.claimed.isEmpty)
        if driver == .sqlite {
            #expect(round.busy.map(\.target) == [widgets])
            #expect(round.busy.first?.holder.contains("commitsctl sync") == true, "\(round.busy)")
            #expect(leases.nextClaimable(within: Self.minute) == Self.minute, "put off to its interval")
        }
        claim.release()
        let later = try leases.claimDue(owner: "daemon", limit: 2, firstSyncLimit: 1, duration: Self.minute)
        #expect(later.claimed.map(\.target) == (driver == .sqlite ? [] : [widgets]))
    }
}
