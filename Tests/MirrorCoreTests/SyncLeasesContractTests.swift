import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// The queue API commitsd claims its work through (`SyncLeases`), one suite run
/// against both drivers: a SQLite file's (`flock`s beside it, due times in the
/// object) and a database's on a real PostgreSQL server (rows and the server's
/// clock). Each claimer is an object of its own on the same store, as two daemons are.
@Suite struct SyncLeasesContractTests {
    enum Driver: String, CaseIterable, Sendable { case sqlite, postgreSQL }

    /// A store of one driver, opened as often as a test has claimers.
    final class QueueUnderTest: @unchecked Sendable {
        let location: StoreLocation
        private let directory: TemporaryDirectory?

        init(_ driver: Driver) async throws {
            TestStoreDrivers.register()
            switch driver {
            case .sqlite:
                let directory = try TemporaryDirectory()
                self.directory = directory
                location = .sqliteFile(directory.path("commits.sqlite"))
            case .postgreSQL:
                directory = nil
                location = try StoreLocation(try await PostgreSQLServer.shared().createDatabase())
            }
        }

        /// A claimer of its own, knowing `targets` (a file store's queue is the object's).
        func claimer(knowing targets: [SyncTarget]) throws -> any SyncLeases {
            let leases = try location.openSyncLeases()
            try leases.addTargets(targets)
            return leases
        }
    }

    static let minute: Duration = .seconds(60)
    static let hour: Duration = .seconds(3_600)

    static func target(_ name: String) -> SyncTarget {
        SyncTarget(repository: RepositoryName(owner: "acme", name: name))
    }

    /// Every due target `leases` claims for "one", by target.
    static func claimAll(_ leases: any SyncLeases) throws -> [SyncTarget: SyncLease] {
        let claims = try leases.claimDue(owner: "one", limit: 10, duration: minute)
        return Dictionary(uniqueKeysWithValues: claims.map { ($0.target, $0) })
    }

    static func isLeaseLost(_ error: any Error, generation: Int64) -> Bool {
        guard case StoreError.leaseLost(let lease) = error else { return false }
        return lease.generation == generation
    }

    @Test(arguments: Driver.allCases)
    func addedTargetsAreDueAtOnceAndClaimedLongestDueFirstUpToTheLimit(_ driver: Driver) async throws {
        let queue = try await QueueUnderTest(driver)
        let (a, b, c) = (Self.target("a"), Self.target("b"), Self.target("c"))
        let leases = try queue.claimer(knowing: [c, a, b])
        // A known target is not added twice.
        try leases.addTargets([a])
        let firstTwo = try leases.claimDue(owner: "one", limit: 2, duration: Self.minute)
        // Added at once: a database's queue by name, one host's in the order added (the configuration's).
        #expect(firstTwo.map(\.target) == (driver == .postgreSQL ? [a, b] : [c, a]))
        #expect(firstTwo.allSatisfy { $0.owner == "one" && $0.generation == 1 && $0.takenOverFrom == nil })
        let rest = try leases.claimDue(owner: "one", limit: 5, duration: Self.minute)
        #expect(rest.map(\.target) == (driver == .postgreSQL ? [c] : [b]))
        #expect(try leases.claimDue(owner: "one", limit: 5, duration: Self.minute).isEmpty)

        // Released in the order c, a: due in that order, which beats the names'.
        let held = Dictionary(uniqueKeysWithValues: (firstTwo + rest).map { ($0.target, $0) })
        try leases.release(try #require(held[c]), nextDue: .zero)
        try leases.release(try #require(held[a]), nextDue: .zero)
        try leases.release(try #require(held[b]), nextDue: Self.hour)
        let again = try leases.claimDue(owner: "one", limit: 5, duration: Self.minute)
        #expect(again.map(\.target) == [c, a])
        #expect(again.allSatisfy { $0.generation == 2 })
    }

    @Test(arguments: Driver.allCases)
    func twoClaimersNeverGetTheSameTarget(_ driver: Driver) async throws {
        let queue = try await QueueUnderTest(driver)
        let targets = (0..<6).map { Self.target("repo-\($0)") }
        let first = try queue.claimer(knowing: targets)
        let second = try queue.claimer(knowing: targets)
        let firsts = try first.claimDue(owner: "one", limit: 3, duration: Self.minute)
        let seconds = try second.claimDue(owner: "two", limit: 10, duration: Self.minute)
        #expect(firsts.count == 3 && seconds.count == 3)
        #expect(Set(firsts.map(\.target)).isDisjoint(with: seconds.map(\.target)))
        #expect(Set(firsts.map(\.target) + seconds.map(\.target)) == Set(targets))
        #expect(try first.claimDue(owner: "one", limit: 10, duration: Self.minute).isEmpty)

        // Released by one, the target goes to the other; on one host, the other
        // found it held and put it off to its own interval (each keeps its due times).
        try second.release(try #require(seconds.first), nextDue: .zero)
        let taken = try first.claimDue(owner: "one", limit: 10, duration: Self.minute)
        #expect(taken.map(\.target) == (driver == .postgreSQL ? [try #require(seconds.first).target] : []))
    }

    @Test(arguments: Driver.allCases)
    func aRenewalExtendsTheLeaseUnderTheSameGeneration(_ driver: Driver) async throws {
        let queue = try await QueueUnderTest(driver)
        let leases = try queue.claimer(knowing: [Self.target("widgets")])
        let lease = try #require(try leases.claimDue(owner: "one", limit: 1, duration: Self.minute).first)
        let renewed = try leases.renew(lease, duration: Self.hour)
        #expect(renewed.target == lease.target && renewed.owner == "one" && renewed.generation == lease.generation)
        #expect(renewed.expiresAt > lease.expiresAt + 1_000)
        // The renewed lease is the one held: it releases.
        try leases.release(renewed, nextDue: Self.hour)
    }

    @Test(arguments: Driver.allCases)
    func aReleasedTargetIsDueAgainAfterItsNextDueAndItsLeaseIsLost(_ driver: Driver) async throws {
        let queue = try await QueueUnderTest(driver)
        let (later, now) = (Self.target("later"), Self.target("now"))
        // Due times are the queue's: one host's claimers keep their own, a database's are shared.
        let first = try queue.claimer(knowing: [later, now])
        let held = try Self.claimAll(first)
        let released = try #require(held[later])
        try first.release(released, nextDue: Self.hour)
        try first.release(try #require(held[now]), nextDue: .zero)
        let again = try first.claimDue(owner: "one", limit: 5, duration: Self.minute)
        #expect(again.map(\.target) == [now], "the other is due in an hour")
        #expect(again.first?.generation == 2)

        // A released lease holds nothing: its former holder can neither renew nor release it.
        #expect { _ = try first.renew(released, duration: Self.minute) } throws: {
            Self.isLeaseLost($0, generation: released.generation)
        }
        #expect { try first.release(released, nextDue: .zero) } throws: {
            Self.isLeaseLost($0, generation: released.generation)
        }
        #expect(try first.claimDue(owner: "one", limit: 5, duration: Self.minute).isEmpty)
    }

    /// A database's lease runs out unrenewed and goes to the next claimer, whose
    /// generation fences the former holder off; a `flock` is held while its holder lives.
    @Test(arguments: Driver.allCases)
    func aLeaseNotRenewedIsTakenOverOnlyWhereLeasesRunOut(_ driver: Driver) async throws {
        let queue = try await QueueUnderTest(driver)
        let widgets = Self.target("widgets")
        let first = try queue.claimer(knowing: [widgets])
        let second = try queue.claimer(knowing: [widgets])
        let claimed = try #require(try first.claimDue(owner: "one", limit: 1, duration: Self.minute).first)
        let short = try first.renew(claimed, duration: .milliseconds(1))
        let deadline = ContinuousClock.now + .seconds(20)
        var taken: SyncLease?
        while taken == nil, ContinuousClock.now < deadline {
            taken = try second.claimDue(owner: "two", limit: 1, duration: Self.minute).first
            if taken == nil { try await Task.sleep(for: .milliseconds(50)) }
            // A flock is never taken over: looking past the short lease's end is enough.
            if !first.leasesRunOut, Date() > short.expiresAt + 0.2 { break }
        }
        if first.leasesRunOut {
            let taken = try #require(taken)
            #expect(taken.target == widgets && taken.owner == "two")
            #expect(taken.takenOverFrom == "one" && taken.generation == claimed.generation + 1)
            #expect { _ = try first.renew(short, duration: Self.minute) } throws: {
                Self.isLeaseLost($0, generation: claimed.generation)
            }
            #expect { try first.release(short, nextDue: .zero) } throws: {
                Self.isLeaseLost($0, generation: claimed.generation)
            }
            #expect(try second.heldLeases().map(\.owner) == ["two"])
        } else {
            #expect(taken == nil)
            let kept = try first.renew(short, duration: Self.minute)
            #expect(kept.generation == claimed.generation)
            try first.release(kept, nextDue: .zero)
            // The second found it held and put it off; a third, which never did, claims it.
            #expect(try second.claimDue(owner: "two", limit: 1, duration: Self.minute).isEmpty)
            let next = try queue.claimer(knowing: [widgets]).claimDue(owner: "three", limit: 1, duration: Self.minute)
            #expect(next.map(\.target) == [widgets] && next.first?.takenOverFrom == nil)
        }
    }

    @Test(arguments: Driver.allCases)
    func aPushMakesAnIdleTargetDueNowAndAHeldOneDueAgainOnRelease(_ driver: Driver) async throws {
        let queue = try await QueueUnderTest(driver)
        let (idle, busy) = (Self.target("idle"), Self.target("busy"))
        let leases = try queue.claimer(knowing: [idle, busy])
        let held = try Self.claimAll(leases)
        try leases.release(try #require(held[idle]), nextDue: Self.hour)
        #expect(try leases.claimDue(owner: "one", limit: 5, duration: Self.minute).isEmpty)

        // Names are matched whatever their case; a repository not queued is ignored.
        let other = RepositoryName(owner: "acme", name: "not-queued")
        try leases.markPushed([RepositoryName(owner: "ACME", name: "Idle"), busy.repository, other])
        let pushed = try leases.claimDue(owner: "one", limit: 5, duration: Self.minute)
        #expect(pushed.map(\.target) == [idle], "the held one stays held")

        // Released with an hour to wait, the pushed one is due at once all the same.
        try leases.release(try #require(held[busy]), nextDue: Self.hour)
        let again = try leases.claimDue(owner: "one", limit: 5, duration: Self.minute)
        #expect(again.map(\.target) == [busy])
        // The push is spent: released again, it waits as asked.
        try leases.release(try #require(again.first), nextDue: Self.hour)
        try leases.release(try #require(pushed.first), nextDue: Self.hour)
        #expect(try leases.claimDue(owner: "one", limit: 5, duration: Self.minute).isEmpty)
    }
}
