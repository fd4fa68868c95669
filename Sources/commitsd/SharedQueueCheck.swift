import Foundation
import MirrorCore

/// What `commitsd --check-config` adds on a store daemons share (a PostgreSQL
/// database): how this file compares with the queue the daemons claim from,
/// read without writing anything, so an operator sees before starting what
/// this daemon will sync, give back or add (docs/OPERATIONS.md, "Several
/// commitsd on one PostgreSQL database"). Facts only; lines for stdout.
struct SharedQueueCheck {
    let configuration: MirrorConfiguration
    /// This daemon's `name`.
    let name: String
    let queued: [RepositoryName]
    let held: [SyncLease]

    /// Reads the store's queue; `nil` when the store is one host's (a SQLite file).
    static func read(_ settings: DaemonSettings) throws -> SharedQueueCheck? {
        guard settings.store.isOnServer else { return nil }
        let reader = try settings.store.openCommitReader()
        return SharedQueueCheck(
            configuration: settings.configuration, name: settings.name, queued: try reader.queuedRepositories(),
            held: try reader.heldClaims())
    }

    /// Names shown in one line before "and N more".
    static let shown = 10

    var lines: [String] {
        var lines: [String] = []
        let live = held.filter { $0.expiresAt > Date() }
        var perHolder: [String: Int] = [:]
        for lease in live { perHolder[lease.owner, default: 0] += 1 }
        let holders = perHolder.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        lines.append(
            "shared queue: \(plural(queued.count, "repository", "repositories")), \(live.count) claimed now"
                + (holders.isEmpty ? "" : " (\(holders.joined(separator: ", ")))"))

        let queuedKeys = Set(queued.map(Self.key))
        let unlisted = queued.filter { !selects($0) }
        if !unlisted.isEmpty {
            lines.append(
                "shared queue: \(plural(unlisted.count, "repository", "repositories")) this file neither lists nor matches with a pattern; this daemon gives them back untouched, the daemons whose files list them sync them: \(Self.names(unlisted))"
            )
        }
        let unqueued = configuration.repositories.map(\.name).filter { !queuedKeys.contains(Self.key($0)) }
        let distinctUnqueued = Dictionary(unqueued.map { (Self.key($0), $0) }) { first, _ in first }.values.sorted {
            Self.key($0) < Self.key($1)
        }
        if !distinctUnqueued.isEmpty {
            lines.append(
                "shared queue: \(plural(distinctUnqueued.count, "repository", "repositories")) this file lists \(distinctUnqueued.count == 1 ? "is" : "are") not queued yet; this daemon adds them when it starts: \(Self.names(distinctUnqueued))"
            )
        }
        if let mine = perHolder[name] {
            lines.append(
                "shared queue: the name \(name) holds \(plural(mine, "claim")) now: a daemon of this name is running, or stopped less than a lease ago; two running daemons must not share a name"
            )
        }
        return lines
    }

    /// Whether this file mirrors `repository`: it lists it, or one of its patterns matches it.
    private func selects(_ repository: RepositoryName) -> Bool {
        configuration.repositories.contains { Self.key($0.name) == Self.key(repository) }
            || configuration.patterns.contains { $0.pattern.matches(repository) }
    }

    private static func key(_ repository: RepositoryName) -> String { repository.description.lowercased() }

    private static func names(_ repositories: [RepositoryName]) -> String {
        let named = repositories.prefix(shown).map(\.description).joined(separator: ", ")
        return repositories.count > shown ? "\(named) and \(repositories.count - shown) more" : named
    }
}
