import ArgumentParser

extension Commitsctl.Stats {
    /// `stats`' options as a table (see `DirectParser`): the names and defaults
    /// declared on the properties in Stats.swift and the option groups.
    static let directParser = DirectParser<Self>(
        defaults: {
            var stats = Self()
            stats.repository = .unset
            stats.format = .table
            stats.branches = false
            stats.pager = .unset
            stats.store = .unset
            return stats
        },
        validate: { (stats: inout Self) in
            // As ArgumentParser does: each option group as it is decoded, then the command.
            try stats.repository.validate()
            try stats.pager.validate()
            try stats.store.validateAsDecoded()
            try stats.validate()
        },
        entries: [
            .argument("--format") { (stats, format: ReportFormat) in stats.format = format },
            .flag("--branches") { $0.branches = true },
        ] + RepositoryFilterOptions.directEntries(\.repository) + PagerOptions.directEntries(\.pager)
            + StoreOptions.directEntries(\.store)
    )
}
