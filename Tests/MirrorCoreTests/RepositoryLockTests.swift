import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore

/// The per-repository writer lock (`RepositoryLock`) every sync takes.
@Suite struct RepositoryLockTests {
    // A lock on a SQLite store asks its driver where the lock files go.
    init() { TestStoreDrivers.register() }

    @Test func secondWriterIsToldWhoHoldsTheLock() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("commits.sqlite")
        let name = RepositoryName(owner: "Acme", name: "Widgets")
        let first = try RepositoryLock.acquire(store: .sqliteFile(store), repository: name, holder: "commitsd")
        #expect(first.path == store + ".locks/acme+widgets.lock")
        let lower = RepositoryName(owner: "acme", name: "widgets")
        #expect(throws: RepositoryLockError.self) {
            try RepositoryLock.acquire(store: .sqliteFile(store), repository: lower, holder: "commitsctl")
        }
        do {
            _ = try RepositoryLock.acquire(store: .sqliteFile(store), repository: lower)
        } catch {
            #expect(
                "\(error)"
                    == "acme/widgets is being synced by another process (commitsd (pid \(getpid()))) right now; skipped it, try again when that finishes"
            )
        }
        // Another repository is independent.
        let other = try RepositoryLock.acquire(store: .sqliteFile(store), repository: RepositoryName(owner: "acme", name: "gadgets"))
        other.release()
        first.release()
        let again = try RepositoryLock.acquire(store: .sqliteFile(store), repository: lower)
        again.release()
    }
}

/// The PostgreSQL store's claim (the repository's row of the shared queue, QueueClaim):
/// released, it is free at once, as `commitsctl sync --branch A --branch B`
/// needs when it takes the same repository's claim again for the next branch.
@Suite struct DatabaseRepositoryLockTests {
    @Test func aReleasedClaimCanBeTakenAgainAtOnce() async throws {
        TestStoreDrivers.register()
        let store = try StoreLocation(try await PostgreSQLServer.shared().createDatabase())
        let name = RepositoryName(owner: "acme", name: "widgets")
        for _ in 0..<200 {
            let lock = try RepositoryLock.acquire(store: store, repository: name, holder: "first")
            #expect(throws: RepositoryLockError.self) { try RepositoryLock.acquire(store: store, repository: name) }
            lock.release()
        }
        try RepositoryLock.acquire(store: store, repository: name).release()
    }
}
