import ArgumentParser

extension Commitsctl.Authors {
    /// `authors`' options as a table (see `DirectParser`): the names and defaults
    /// declared on the properties in Authors.swift and the option groups.
    static let directParser = DirectParser<Self>(
        defaults: {
            var authors = Self()
            authors.repository = .unset
            authors.top = nil
            authors.format = .table
            authors.mailmap = nil
            authors.pager = .unset
            authors.store = .unset
            return authors
        },
        validate: { (authors: inout Self) in
            // As ArgumentParser does: each option group as it is decoded, then the command.
            try authors.repository.validate()
            try authors.pager.validate()
            try authors.store.validateAsDecoded()
            try authors.validate()
        },
        entries: [
            .argument("--top") { (authors, top: Int) in authors.top = top },
            .argument("--format") { (authors, format: ReportFormat) in authors.format = format },
            .text("--mailmap") { $0.mailmap = $1 },
        ] + RepositoryFilterOptions.directEntries(\.repository) + PagerOptions.directEntries(\.pager)
            + StoreOptions.directEntries(\.store)
    )
}
