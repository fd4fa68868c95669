import Foundation
import MirrorTestSupport
import PostgreSQL
import Testing

@testable import MirrorCore
@testable import MirrorPostgreSQL

/// A command's claim on a PostgreSQL store (`commitsctl sync`, `import`,
/// `repos remove`; QueueClaim.swift) is the repository's row of the queue the
/// daemons share: a daemon never claims what a command holds nor the reverse,
/// the holder is named, the lease is renewed while the command runs, and the
/// command's writer is fenced like a daemon's. Against the real server.
@Suite struct PostgreSQLCommandClaimTests {
    typealias Leases = PostgreSQLSyncLeasesTests
    static let widgets = Leases.widgets

    @Test func aDaemonDoesNotClaimWhatACommandHoldsAndTheCommandIsNamed() async throws {
        let uri = try await Leases.database()
        let daemon = try StoreLocation(uri).openSyncLeases()
        // Queued as a daemon's file spells it; names are matched as GitHub matches them.
        try daemon.addTargets([SyncTarget(repository: RepositoryName(owner: "ACME", name: "Widgets"))])
        let command = try RepositoryLock.acquire(store: StoreLocation(uri), repository: Self.widgets.repository, holder: "commitsctl sync")
        #expect(try daemon.claimDue(owner: "daemon-1", limit: 10, duration: .seconds(60)).isEmpty)
        let held = try daemon.heldLeases()
        #expect(held.count == 1 && held[0].owner.hasPrefix("commitsctl sync on "), "\(held)")
        command.release()
        let claimed = try daemon.claimDue(owner: "daemon-1", limit: 10, duration: .seconds(60))
        #expect(claimed.map(\.target.repository.description) == ["ACME/Widgets"])
    }

    @Test func aCommandIsRefusedWhatADaemonHoldsWithTheHolderAndItsLease() async throws {
        let uri = try await Leases.database()
        let daemon = try StoreLocation(uri).openSyncLeases()
        try daemon.addTargets([Self.widgets])
        _ = try #require(try daemon.claimDue(owner: "daemon-1", limit: 1, duration: .seconds(60)).first)
        #expect {
            try RepositoryLock.acquire(store: StoreLocation(uri), repository: Self.widgets.repository, holder: "commitsctl sync")
        } throws: { error in
            let text = "\(error)"
            return text.contains("acme/widgets is being synced by another process (daemon-1, lease until ")
                && text.contains("Z) right now")
        }
    }

    @Test func aCommandsLeaseIsRenewedWhileItRuns() async throws {
        let uri = try await Leases.database()
        let claim = try QueueClaim.acquire(
            uri: uri, password: nil, repository: Self.widgets.repository, holder: "commitsctl sync", duration: .seconds(2))
        defer { claim.release() }
        // Renewed twice (every third of its 2 s): the lease has moved on, the command still holds it, its writer writes.
        let observer = try PostgreSQLConnection(uri: uri)
        func leaseUntil() throws -> Double? {
            try observer.execute("SELECT extract(epoch FROM lease_until)::float8 FROM sync_leases WHERE owner IS NOT NULL").double(0, 0)
        }
        let first = try #require(try leaseUntil())
        var renewals: [Double] = []
        #expect(
            try await waitUntil(timeout: .seconds(60), every: .milliseconds(20)) {
                if let now = try leaseUntil(), now != (renewals.last ?? first) { renewals.append(now) }
                return renewals.count >= 2
            })
        #expect(renewals.allSatisfy { $0 > first }, "\(first) then \(renewals)")
        let daemon = try StoreLocation(uri).openSyncLeases()
        try daemon.addTargets([Self.widgets])
        #expect(try daemon.claimDue(owner: "daemon-1", limit: 1, duration: .seconds(60)).isEmpty)
        let writer = try #require(try claim.openWriter())
        try await Leases.writePage(writer, commits: [StoreFixtures.commit(1, parents: [])])
        #expect(try writer.commitCount(repositoryID: nil) == 1)
    }

    @Test func aCommandPausedPastItsLeaseWritesNothingAfterADaemonTookOver() async throws {
        let uri = try await Leases.database()
        let command = try RepositoryLock.acquire(store: StoreLocation(uri), repository: Self.widgets.repository, holder: "commitsctl sync")
        defer { command.release() }
        let writer = try #require(try command.openClaimWriter())
        try await Leases.writePage(writer, commits: [StoreFixtures.commit(1, parents: [])])
        // As if the command were stopped past its lease: the lease runs out and a daemon claims it.
        let observer = try PostgreSQLConnection(uri: uri)
        try observer.execute("UPDATE sync_leases SET lease_until = now() - interval '1 second'")
        let daemon = try StoreLocation(uri).openSyncLeases()
        let taken = try #require(try daemon.claimDue(owner: "daemon-1", limit: 1, duration: .seconds(60)).first)
        await #expect { try await Leases.writePage(writer, commits: [StoreFixtures.commit(2, parents: [1])]) } throws: {
            guard case StoreError.leaseLost = $0 else { return false }
            return true
        }
        #expect(try writer.commitCount(repositoryID: nil) == 1)
        // Released late, the command's claim leaves the daemon's alone.
        command.release()
        #expect(try daemon.heldLeases().map(\.generation) == [taken.generation])
    }
}
