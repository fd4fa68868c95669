// A repository's pull requests: those its history shows (derived once, on first use, from its
// merges) and those the control endpoint opened or changed since, which take the place of the
// derived ones with the same number. Every change bumps `updated_at` past every earlier one, so a
// listing sorted by update shows it first.

import Foundation
import Synchronization

final class PullRequestBook: Sendable {
    enum Entry {
        case derived(PullRequestSeed)
        case changed(PullRequest)
    }

    enum StateFilter: String {
        case open, closed, all
    }

    private struct State {
        var seeds: [PullRequestSeed]?
        var changed: [Int: PullRequest] = [:]
        var lastUpdate: Int64 = 0
    }
    private let state = Mutex(State())

    /// Derives the seeds on first use: a listing pays for it once, a repository never listed never.
    private func seeds(_ repository: HostedRepository) -> [PullRequestSeed] {
        state.withLock { state in
            if let seeds = state.seeds { return seeds }
            let snapshot = repository.snapshot
            let seeds = repository.graph.map { graph in snapshot.head.map { PullRequestDerivation.seeds(of: graph, head: $0) } ?? [] } ?? []
            state.seeds = seeds
            return seeds
        }
    }

    /// The pull requests a listing shows, in its order: by update or creation, newest first unless `ascending`.
    func listing(_ repository: HostedRepository, filter: StateFilter, byCreation: Bool, ascending: Bool) -> [Entry] {
        let seeds = filter == .open ? [] : seeds(repository)
        let changed = state.withLock { $0.changed }
        let key: (PullRequest) -> Int64 = { byCreation ? $0.createdAt : $0.updatedAt }
        let shown = changed.values.filter { filter == .all || $0.isOpen == (filter == .open) }.sorted { key($0) > key($1) }
        var entries: [Entry] = []
        entries.reserveCapacity(seeds.count + shown.count)
        var next = shown.startIndex
        for seed in seeds where changed[Int(seed.number)] == nil {
            // A derived one opened `openFor` before it merged, so either order is its merge order.
            let time = repository.graph.map { $0.committerTime(of: Int(seed.node)) } ?? 0
            while next < shown.endIndex, key(shown[next]) >= (byCreation ? time - PullRequestDerivation.openFor : time) {
                entries.append(.changed(shown[next]))
                next += 1
            }
            entries.append(.derived(seed))
        }
        entries += shown[next...].map(Entry.changed)
        return ascending ? entries.reversed() : entries
    }

    func pullRequest(_ entry: Entry, in repository: HostedRepository) -> PullRequest? {
        switch entry {
        case .changed(let pull): return pull
        case .derived(let seed):
            guard let graph = repository.graph else { return nil }
            return PullRequestDerivation.pullRequest(seed, graph: graph, baseRef: repository.defaultBranch)
        }
    }

    /// Pull request `number`, as it is now.
    func pullRequest(_ number: Int, in repository: HostedRepository) -> PullRequest? {
        if let changed = state.withLock({ $0.changed[number] }) { return changed }
        return seeds(repository).first { Int($0.number) == number }.flatMap { pullRequest(.derived($0), in: repository) }
    }

    /// Applies `change` to pull request `number` (or to a new one, when `number` is nil) and bumps
    /// its `updated_at`; returns it as changed.
    func change(_ number: Int?, in repository: HostedRepository, _ change: (inout PullRequest, Int64) throws -> Void) throws -> PullRequest
    {
        let seeds = seeds(repository)
        let existing = number.flatMap { pullRequest($0, in: repository) }
        if let number, existing == nil {
            throw SimulatorError(description: "no pull request #\(number) in \(repository.snapshot.fullName)")
        }
        return try state.withLock { state in
            let now = max(Int64(Date().timeIntervalSince1970), state.lastUpdate + 1)
            var pull = existing ?? Self.opened(number: Self.nextNumber(seeds: seeds, changed: state.changed), at: now)
            try change(&pull, now)
            pull.updatedAt = now
            state.lastUpdate = now
            state.changed[pull.number] = pull
            return pull
        }
    }

    private static func nextNumber(seeds: [PullRequestSeed], changed: [Int: PullRequest]) -> Int {
        max(seeds.map { Int($0.number) }.max() ?? 0, changed.keys.max() ?? 0) + 1
    }

    private static func opened(number: Int, at time: Int64) -> PullRequest {
        PullRequest(
            number: number, title: "", body: "", user: SimUser(login: "octocat", id: 583_231), isOpen: true, baseRef: "",
            baseSHA: "", headOwner: "octocat", headRef: "feature-\(number)", headSHA: "", mergeCommitSHA: nil, method: nil,
            createdAt: time, updatedAt: time, closedAt: nil, mergedAt: nil)
    }
}
