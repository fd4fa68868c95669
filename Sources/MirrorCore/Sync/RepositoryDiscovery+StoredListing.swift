import Foundation

extension RepositoryDiscovery {
    /// What `discover` would select for `owner` now, read from the store
    /// alone, without a request: the owner's listing as last recorded (by any
    /// process sharing the store) filtered through `selections`, keeping the
    /// repositories the store has active.
    ///
    /// This is how daemons sharing a database follow the one that lists: it
    /// records each listing and each repository's state in the store, and the
    /// others read them (docs/SCALING.md). `nil` when the owner was never listed.
    public func storedSelection(owner: String, selections: [Selection]) async throws -> [Selected]? {
        try await DedicatedThreads.store.run {
            // A reader: no migration check, no staging tables, every few seconds.
            let store = try self.store.openCommitReader()
            guard let listing = try store.ownerListing(owner: owner) else { return nil }
            let active = Set(try store.activeRepositories(ownedBy: owner).compactMap(\.githubID))
            let selections = selections.filter { $0.pattern.owner.lowercased() == owner.lowercased() }
            var selected: [Selected] = []
            var seen = Set<Int>()
            for repository in listing.repositories where seen.insert(repository.id).inserted && active.contains(repository.id) {
                guard let name = RepositoryName(parsing: repository.fullName),
                    let index = selections.firstIndex(where: { $0.selects(repository, named: name) })
                else { continue }
                selected.append(Selected(name: name, selection: index))
            }
            return selected
        }
    }
}
