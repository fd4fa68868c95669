import Foundation
import Logging

/// A repository's tags, read once per sync of its default branch: one
/// conditional request (a free 304 when nothing changed), and each annotated
/// tag object read once ever (docs/SYNC.md, "Tags").
extension SyncEngine {
    /// Records the tags of `name`'s listing that `selection` selects (a tag it no
    /// longer selects ends its row, as a deleted one does); nil when GitHub answered
    /// that nothing changed. A tag naming a commit the mirror does not hold is recorded
    /// all the same: what it reaches is answered once a branch brings it. When the tags
    /// changed or `commitsAdded`, each commit's earliest containing tag is brought up to date.
    public func syncTags(
        _ name: RepositoryName, selection: TagSelection = .all, commitsAdded: Bool = false
    ) async throws -> TagChanges? {
        guard selection != .none, name.isGitHubName, let repository = try store.repository(named: name) else { return nil }
        let changes = try await readTags(name, repositoryID: repository.id, selection: selection)
        if commitsAdded || changes.map({ !$0.isEmpty }) == true {
            try store.refreshTagContainment(repositoryID: repository.id)
        }
        return changes
    }

    private func readTags(_ name: RepositoryName, repositoryID: Int64, selection: TagSelection) async throws -> TagChanges? {
        let stored = try store.tagListing(repositoryID: repositoryID)
        let requestsBefore = client.usage.requests
        // A listing recorded under another selection says nothing of what this one selects: ask in full.
        let known = stored.selection == selection.storedForm ? stored.etag : nil
        guard case .listed(var listing, let etag) = try await client.tagRefs(name, etag: known) else {
            try store.recordTagListingUnchanged(repositoryID: repositoryID, at: Date())
            return nil
        }
        var logger = self.logger
        logger[metadataKey: "repo"] = "\(name)"
        // An empty answer for a repository with tags is more likely a server's fault than every tag deleted.
        if listing.tags.isEmpty && !stored.tags.isEmpty {
            logger.warning("an empty tag listing was not recorded", metadata: ["tags.stored": "\(stored.tags.count)"])
            return nil
        }
        listing.tags = listing.tags.filter { selection.selects($0.name) }
        let read = try await client.readAnnotations(of: listing, in: name, known: stored.tags)
        for skipped in read.skipped { logger.warning("tag not recorded", metadata: ["tag.skipped": "\(skipped)"]) }
        let changes = try store.recordTags(
            read.tags, repositoryID: repositoryID, etag: etag, selection: selection.storedForm, at: Date())
        if !changes.isEmpty {
            logger.info(
                "tags recorded",
                metadata: [
                    "tags.added": "\(changes.added)", "tags.moved": "\(changes.moved)", "tags.deleted": "\(changes.deleted)",
                    "tags.requests": "\(client.usage.requests - requestsBefore)",
                ])
        }
        return changes
    }
}
