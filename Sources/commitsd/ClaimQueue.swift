import Foundation
import MirrorCore
import ServiceLifecycle
import Logging

/// The daemon's connection to the store's queue of sync targets (`SyncLeases`),
/// used by the loop and by every renewal while syncs run: its calls are
/// taken one at a time (a connection runs one statement at a time), and on a
/// database a call that failed for another reason than a lost lease (the server
/// restarted, the connection dropped) drops the connection, so the next call opens a new one.
///
/// Calls block: they are made from `DedicatedThreads.store`, like every store call.
final class ClaimQueue: @unchecked Sendable {
    private let store: StoreLocation
    private let lock = NSLock()
    private var leases: (any SyncLeases)?
    /// Whether its leases run out by the store's clock, so claims are renewed (`SyncLeases.leasesRunOut`).
    let leasesRunOut: Bool

    init(store: StoreLocation, leases: any SyncLeases) {
        self.store = store
        self.leases = leases
        leasesRunOut = leases.leasesRunOut
    }

    func with<T>(_ body: (any SyncLeases) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let leases = try self.leases ?? store.openSyncLeases()
        self.leases = leases
        do {
            return try body(leases)
        } catch let error as StoreError where error.isLeaseLost {
            throw error
        } catch {
            // A database's connection may be what failed; a host's queue holds its claims' locks, kept.
            if leasesRunOut { self.leases = nil }
            throw error
        }
    }
}

/// A claim's lease while its sync runs: the latest renewal, and whether a
/// renewal was refused (the claim is lost; the sync is cancelled and nothing more is written).
final class HeldLease: @unchecked Sendable {
    private let lock = NSLock()
    private var current: SyncLease
    private var lost = false

    init(_ lease: SyncLease) { current = lease }

    var lease: SyncLease { lock.withLock { current } }
    var isLost: Bool { lock.withLock { lost } }

    func renewed(_ lease: SyncLease) { lock.withLock { current = lease } }
    func markLost() { lock.withLock { lost = true } }
}

extension SyncService {
    /// The store's queue of sync targets; `nil` when shut down while it does not open.
    func openQueue() async -> ClaimQueue? {
        let logger = makeLogger(logLevelOverride ?? initial.configuration.logLevel)
        var logged = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                return ClaimQueue(store: initial.store, leases: try initial.store.openSyncLeases())
            } catch {
                if !logged {
                    logger.error("cannot open the store's queue of claims; commitsd keeps trying", metadata: ["error": "\(error)"])
                }
                logged = true
                try? await Task.sleep(for: .seconds(5))
            }
        }
        return nil
    }
}
