import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore

/// The per-repository writer lock (`RepositoryLock`) every sync takes.
@Suite struct RepositoryLockTests {
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
