import Foundation
import MirrorTestSupport
import PostgreSQL
import Synchronization
import Testing

@testable import MirrorCore

/// Sync targets claimed under leases in a PostgreSQL store (schema version 4,
/// PostgreSQLSyncLeases.swift, WriteFence.swift), against the real server: two
/// claimers never share a target, a lease that ran out goes to the next claimer
/// with a higher generation, and the former holder can neither renew nor write.
@Suite struct PostgreSQLSyncLeasesTests {
    static let widgets = SyncTarget(repository: StoreFixtures.identity.fullName)

    static func database() async throws -> String {
        TestStoreDrivers.register()
        return try await PostgreSQLServer.shared().createDatabase()
    }

    static func targets(_ count: Int) -> [SyncTarget] {
        (0..<count).map { n in
            SyncTarget(repository: RepositoryName(owner: "acme", name: "repo-\(n)"), branch: n % 3 == 0 ? "release" : nil)
        }
    }

    /// Runs `lease` out, as the server's clock passing its end would (its row's `lease_until`, moved into
    /// the past through a connection of the test's own), then claims one target for `owner`.
    static func claimOnceExpired(_ leases: any SyncLeases, owner: String, expiring lease: SyncLease, in uri: String) throws
        -> SyncLease?
    {
        try PostgreSQLConnection(uri: uri).execute(
            """
            UPDATE sync_leases SET lease_until = now() - interval '1 second'
            WHERE lower(repository) = lower($1) AND branch = $2 AND lease_generation = $3 AND owner IS NOT NULL
            """, [lease.target.repository.description, lease.target.branch ?? "", lease.generation])
        return try leases.claimDue(owner: owner, limit: 1, duration: .seconds(60)).first
    }

    /// A page of the widgets' history written through `writer`: the repository, a walk and `commits` in one batch.
    static func writePage(_ writer: any MirrorWriter, commits: [Commit]) async throws {
        let repository = try writer.adopt(StoreFixtures.identity, requestedAs: StoreFixtures.identity.fullName)
        try writer.recordAttempt(repositoryID: repository.id, branch: "main")
        let walk = try writer.beginWalk(repositoryID: repository.id, branch: "main", headSHA: commits[0].sha)
        _ = try await writer.withBatches(limits: BatchLimits()) { batches in
            try batches.store(page: commits, repositoryID: repository.id, walk: walk, nextURL: nil, pagesTotal: 1)
        }
    }

    static func isLeaseLost(_ error: any Error, generation: Int64) -> Bool {
        guard case StoreError.leaseLost(let lease) = error else { return false }
        return lease.generation == generation
    }

    @Test func twoConnectionsClaimingAtOnceNeverGetTheSameTarget() async throws {
        let uri = try await Self.database()
        let targets = Self.targets(60)
        try StoreLocation(uri).openSyncLeases().addTargets(targets)
        // Known targets are not added twice, and keep their place.
        try StoreLocation(uri).openSyncLeases().addTargets(Array(targets.prefix(10)))

        let claimed = Mutex<[String: [SyncTarget]]>([:])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            let owner = "daemon-\(worker)"
            do {
                let leases = try StoreLocation(uri).openSyncLeases()
                while true {
                    let batch = try leases.claimDue(owner: owner, limit: 3, duration: .seconds(60))
                    if batch.isEmpty { break }
                    if !batch.allSatisfy({ $0.owner == owner && $0.generation == 1 }) {
                        failures.withLock { $0.append("\(owner): a first claim not of generation 1 for it: \(batch)") }
                    }
                    claimed.withLock { $0[owner, default: []] += batch.map(\.target) }
                }
            } catch {
                failures.withLock { $0.append("\(owner): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let byOwner = claimed.withLock { $0 }
        let all = byOwner.values.flatMap { $0 }
        #expect(all.count == targets.count, "each target claimed once")
        #expect(Set(all) == Set(targets))
        #expect(Set(byOwner["daemon-0"] ?? []).isDisjoint(with: byOwner["daemon-1"] ?? []))
        // Every target is held now: nothing more to claim for anyone.
        #expect(try StoreLocation(uri).openSyncLeases().claimDue(owner: "daemon-2", limit: 100, duration: .seconds(60)).isEmpty)
    }

    @Test func anExpiredLeaseGoesToAnotherOwnerWithAHigherGeneration() async throws {
        let uri = try await Self.database()
        let first = try StoreLocation(uri).openSyncLeases()
        let second = try StoreLocation(uri).openSyncLeases()
        let held = SyncTarget(repository: RepositoryName(owner: "acme", name: "held"), branch: "main")
        try first.addTargets([Self.widgets, held])

        let long = try #require(try first.claimDue(owner: "a", limit: 1, duration: .seconds(60)).first)
        let short = try #require(try first.claimDue(owner: "a", limit: 1, duration: .seconds(30)).first)
        #expect(Set([long.target, short.target]) == [Self.widgets, held])
        #expect(long.generation == 1 && short.generation == 1)

        let taken = try #require(try Self.claimOnceExpired(second, owner: "b", expiring: short, in: uri))
        #expect(taken.target == short.target)
        #expect(taken.owner == "b" && taken.generation == 2)
        #expect(taken.expiresAt > short.expiresAt)
        // The long lease is still live: no one else gets it.
        #expect(try second.claimDue(owner: "b", limit: 10, duration: .seconds(60)).isEmpty)
    }

    @Test func theFormerHolderCanNeitherRenewNorReleaseAfterATakeover() async throws {
        let uri = try await Self.database()
        let first = try StoreLocation(uri).openSyncLeases()
        let second = try StoreLocation(uri).openSyncLeases()
        try first.addTargets([Self.widgets])
        let old = try #require(try first.claimDue(owner: "a", limit: 1, duration: .seconds(30)).first)
        let renewed = try first.renew(old, duration: .seconds(30))
        #expect(renewed.generation == old.generation && renewed.expiresAt > old.expiresAt)

        let taken = try #require(try Self.claimOnceExpired(second, owner: "b", expiring: renewed, in: uri))
        #expect(taken.generation == old.generation + 1)
        #expect { _ = try first.renew(old, duration: .seconds(60)) } throws: { Self.isLeaseLost($0, generation: old.generation) }
        #expect { try first.release(old, nextDue: .seconds(1)) } throws: { Self.isLeaseLost($0, generation: old.generation) }
        // The new holder renews and releases; released, the target is due again later, not now.
        let kept = try second.renew(taken, duration: .seconds(60))
        #expect(kept.generation == taken.generation && kept.owner == "b")
        try second.release(kept, nextDue: .seconds(3_600))
        #expect(try first.claimDue(owner: "a", limit: 1, duration: .seconds(60)).isEmpty)
        #expect { try second.release(kept, nextDue: .seconds(1)) } throws: { Self.isLeaseLost($0, generation: kept.generation) }
    }

    /// `commitsctl status` and the takeover counter: who holds what, and from whom a claim was taken.
    @Test func heldLeasesAndTakeoversAreReported() async throws {
        let uri = try await Self.database()
        let first = try StoreLocation(uri).openSyncLeases()
        let second = try StoreLocation(uri).openSyncLeases()
        #expect(first.leasesRunOut)
        let other = SyncTarget(repository: RepositoryName(owner: "acme", name: "other"))
        try first.addTargets([Self.widgets, other])
        #expect(try second.heldLeases().isEmpty)
        let claims = try first.claimDue(owner: "a", limit: 2, duration: .seconds(60))
        #expect(claims.count == 2 && claims.allSatisfy { $0.takenOverFrom == nil })
        #expect(Set(try second.heldLeases().map(\.owner)) == ["a"])
        let released = try #require(claims.first { $0.target == other })
        try first.release(released, nextDue: .zero)
        // Released: no holder, and claiming it again is no takeover.
        #expect(try second.heldLeases().map(\.target) == [Self.widgets])
        let again = try #require(try second.claimDue(owner: "b", limit: 1, duration: .seconds(60)).first)
        #expect(again.target == other && again.takenOverFrom == nil && again.generation == 2)
        // Run out unreleased: the next claim names the owner it was taken from.
        let unreleased = try #require(claims.first { $0.target == Self.widgets })
        let taken = try #require(try Self.claimOnceExpired(second, owner: "b", expiring: unreleased, in: uri))
        #expect(taken.target == Self.widgets && taken.takenOverFrom == "a" && taken.generation == 2)
        let held = try first.heldLeases()
        #expect(held.map(\.owner) == ["b", "b"])
        #expect(held.allSatisfy { $0.expiresAt > Date() - 30 })
    }

    @Test func theFormerHoldersWritesAfterATakeoverAreRefusedAndWriteNothing() async throws {
        let uri = try await Self.database()
        let first = try StoreLocation(uri).openSyncLeases()
        let second = try StoreLocation(uri).openSyncLeases()
        try first.addTargets([Self.widgets])
        let old = try #require(try first.claimDue(owner: "a", limit: 1, duration: .seconds(60)).first)
        let paused = try first.openFencedWriter(for: old)
        // While the lease holds, its writes go through.
        try await Self.writePage(paused, commits: [StoreFixtures.commit(2, parents: [1])])
        #expect(try paused.commitCount(repositoryID: nil) == 1)
        // Then its holder stops renewing (paused): the lease runs out by the server's clock.
        let taken = try #require(try Self.claimOnceExpired(second, owner: "b", expiring: old, in: uri))
        let observer = try PostgreSQLConnection(uri: uri)
        /// The rows of the tables a sync writes, and the indexes (a dropped and rebuilt one has a new oid).
        func counts() throws -> [String?] {
            let indexes = try observer.execute(
                """
                SELECT string_agg(c.relname || ' ' || c.oid, ', ' ORDER BY c.relname) FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'i'
                """
            ).string(0, 0)
            return try ["commits", "sync_walks", "sync_state", "repository_commits"].map {
                try observer.execute("SELECT count(*) FROM \($0)").string(0, 0)
            } + [indexes]
        }
        let before = try counts()
        let repositoryID = try #require(try paused.repository(named: Self.widgets.repository)).id
        let walk = try #require(try paused.pendingWalks(repositoryID: repositoryID, branch: "main").first)
        await #expect { try await Self.writePage(paused, commits: [StoreFixtures.commit(3, parents: [2])]) } throws: {
            Self.isLeaseLost($0, generation: old.generation)
        }
        // A load big enough that an unfenced writer would drop the secondary indexes first.
        await #expect {
            try await paused.withBatches(limits: BatchLimits(expectedCommits: 10_000)) { batches in
                try batches.store(
                    page: [StoreFixtures.commit(1, parents: [])], repositoryID: repositoryID, walk: walk, nextURL: nil,
                    pagesTotal: 1)
            }
        } throws: { Self.isLeaseLost($0, generation: old.generation) }
        #expect { try paused.recordAttempt(repositoryID: repositoryID, branch: "main") } throws: {
            Self.isLeaseLost($0, generation: old.generation)
        }
        #expect { try paused.finishWalk(walk) } throws: { Self.isLeaseLost($0, generation: old.generation) }
        #expect(try counts() == before, "the refused writes left nothing, every index in place")
        #expect(try paused.pendingWalks(repositoryID: repositoryID, branch: "main") == [walk])

        // The new holder's writer goes on from what was committed.
        let current = try second.openFencedWriter(for: taken)
        try current.recordAttempt(repositoryID: repositoryID, branch: "main")
        _ = try await current.withBatches(limits: BatchLimits()) { batches in
            try batches.store(
                page: [StoreFixtures.commit(1, parents: [])], repositoryID: repositoryID, walk: walk, nextURL: nil,
                pagesTotal: 1)
        }
        #expect(try current.commitCount(repositoryID: nil) == 2)
        #expect(
            "\(StoreError.leaseLost(old))"
                == "the claim on acme/widgets (default branch) by a (lease generation 1) is lost: its lease ran out and another owner claimed it, or it was released; nothing was written under it"
        )
    }

    @Test func aTransactionOutlivingItsLeaseIsRefusedAtCommitAndTheRowIsClaimableMeanwhile() async throws {
        let uri = try await Self.database()
        let first = try StoreLocation(uri).openSyncLeases()
        let second = try StoreLocation(uri).openSyncLeases()
        try first.addTargets([Self.widgets])
        let lease = try #require(try first.claimDue(owner: "a", limit: 1, duration: .seconds(60)).first)
        let writer = try first.openFencedWriter(for: lease)
        try await Self.writePage(writer, commits: [StoreFixtures.commit(2, parents: [1])])
        let repositoryID = try #require(try writer.repository(named: Self.widgets.repository)).id
        let walk = try #require(try writer.pendingWalks(repositoryID: repositoryID, branch: "main").first)
        let observer = try PostgreSQLConnection(uri: uri)

        // Renewed while a transaction is open, the lease holds at its commit.
        try await writer.withBatches(limits: BatchLimits(maximumPages: 100)) { batches in
            _ = try batches.store(
                page: [StoreFixtures.commit(3, parents: [2])], repositoryID: repositoryID, walk: walk, nextURL: nil,
                pagesTotal: 1)
            _ = try first.renew(lease, duration: .seconds(60))
        }
        #expect(try observer.execute("SELECT count(*) FROM commits").int(0, 0) == 2)

        let short = try first.renew(lease, duration: .seconds(30))
        var claimedMeanwhile: [SyncLease] = []
        await #expect {
            try await writer.withBatches(limits: BatchLimits(maximumPages: 100)) { batches in
                // The batch's transaction checked the lease when it began, locking nothing.
                _ = try batches.store(
                    page: [StoreFixtures.commit(1, parents: [])], repositoryID: repositoryID, walk: walk, nextURL: nil,
                    pagesTotal: 1)
                #expect(batches.isOpen)
                claimedMeanwhile = try Self.claimOnceExpired(second, owner: "b", expiring: short, in: uri).map { [$0] } ?? []
            }
        } throws: { Self.isLeaseLost($0, generation: lease.generation) }
        #expect(claimedMeanwhile.map(\.generation) == [short.generation + 1], "claimed while the transaction was open")
        #expect(try observer.execute("SELECT count(*) FROM commits").int(0, 0) == 2, "the late transaction wrote nothing")
        #expect { try writer.recordAttempt(repositoryID: repositoryID, branch: "main") } throws: {
            Self.isLeaseLost($0, generation: lease.generation)
        }
    }

    @Test func aDatabaseMissingTheLeaseVersionGetsItWhateverNewerVersionsItHas() async throws {
        let uri = try await Self.database()
        _ = try StoreLocation(uri).openSyncWriter()
        let observer = try PostgreSQLConnection(uri: uri)
        let everyVersion = try observer.execute("SELECT version FROM commits_mirror_schema ORDER BY version").rows
        #expect(everyVersion.contains(["4"]))
        // As if a version written on another line of work had reached it first.
        try observer.execute("DROP TABLE sync_leases")
        // (Version 5 adds a column to version 4's table: the two go together.)
        try observer.execute("DELETE FROM commits_mirror_schema WHERE version IN (4, 5)")
        #expect { _ = try StoreLocation(uri).openCommitReader() } throws: { "\($0)".contains("needs a schema upgrade") }
        let leases = try StoreLocation(uri).openSyncLeases()
        try leases.addTargets([Self.widgets])
        #expect(try leases.claimDue(owner: "a", limit: 5, duration: .seconds(60)).map(\.target) == [Self.widgets])
        let versions = try observer.execute("SELECT version FROM commits_mirror_schema ORDER BY version").rows
        #expect(versions == everyVersion)
    }
}

/// A SQLite store's claims behind the same calls: the repository's `flock`, due times in memory.
@Suite struct HostSyncLeasesTests {
    @Test func aFileStoresClaimIsTheRepositorysFlock() throws {
        TestStoreDrivers.register()
        let directory = try TemporaryDirectory()
        let store = StoreLocation.sqliteFile(directory.path("commits.sqlite"))
        let first = try store.openSyncLeases()
        let second = try store.openSyncLeases()
        let main = SyncTarget(repository: RepositoryName(owner: "acme", name: "widgets"), branch: "main")
        let release = SyncTarget(repository: RepositoryName(owner: "acme", name: "widgets"), branch: "release")
        try first.addTargets([main, release])
        try second.addTargets([main])

        let held = try first.claimDue(owner: "a", limit: 5, duration: .seconds(60))
        #expect(held.count == 1, "branches of one repository share its lock")
        #expect(first.nextClaimable(within: .seconds(60)) == .seconds(60), "the other branch waits for the lock, not due now")
        #expect(try second.claimDue(owner: "b", limit: 5, duration: .seconds(60)).isEmpty, "the flock is held")
        #expect {
            _ = try RepositoryLock.acquire(store: store, repository: main.repository, holder: "commitsctl")
        } throws: { "\($0)".contains("is being synced by another process (\(ProcessInfo.processInfo.processName) (pid") }
        let lease = try #require(held.first)
        _ = try first.openFencedWriter(for: lease)

        try first.release(lease, nextDue: .seconds(3_600))
        #expect { _ = try first.openFencedWriter(for: lease) } throws: { error in
            guard case StoreError.leaseLost = error else { return false }
            return true
        }
        // The second found it held and put it off to its interval; a claimer that did not, claims it.
        #expect(try second.claimDue(owner: "b", limit: 5, duration: .seconds(60)).isEmpty)
        let third = try store.openSyncLeases()
        try third.addTargets([main])
        #expect(try third.claimDue(owner: "c", limit: 5, duration: .seconds(60)).map(\.target) == [main])
    }
}
