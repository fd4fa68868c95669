import ArgumentParser

extension Commitsctl.Query {
    /// `query`'s options as a table (see `DirectParser`): the names and defaults
    /// declared on the properties in Query.swift and the option groups.
    static let directParser = DirectParser<Self>(
        defaults: {
            var query = Self()
            query.author = []
            query.committer = []
            query.coAuthor = []
            query.grep = []
            query.allMatch = false
            query.invertGrep = false
            query.ignoreCase = false
            query.noMerges = false
            query.merges = false
            query.since = nil
            query.until = nil
            query.mailmap = nil
            query.follow = false
            query.repository = .unset
            query.branch = []
            query.limit = nil
            query.reverse = false
            query.includeRewritten = false
            query.format = .oneline
            query.pager = .unset
            query.store = .unset
            return query
        },
        validate: { (query: inout Self) in
            // As ArgumentParser does: each option group as it is decoded, then the command.
            try query.repository.validate()
            try query.pager.validate()
            try query.store.validateAsDecoded()
            try query.validate()
        },
        entries: [
            .texts("--author") { $0.author.append($1) },
            .texts("--committer") { $0.committer.append($1) },
            .texts("--co-author") { $0.coAuthor.append($1) },
            .texts("--grep") { $0.grep.append($1) },
            .flag("--all-match") { $0.allMatch = true },
            .flag("--invert-grep") { $0.invertGrep = true },
            .flag("-i", "--regexp-ignore-case") { $0.ignoreCase = true },
            .flag("--no-merges") { $0.noMerges = true },
            .flag("--merges") { $0.merges = true },
            .text("--since", "--after") { $0.since = $1 },
            .text("--until", "--before") { $0.until = $1 },
            .text("--mailmap") { $0.mailmap = $1 },
            .flag("--follow") { $0.follow = true },
            .texts("--branch") { $0.branch.append($1) },
            .argument("-n", "--limit", "--max-count", joinsShortValue: true) { (query, limit: Int) in query.limit = limit },
            .flag("--reverse") { $0.reverse = true },
            .flag("--include-rewritten") { $0.includeRewritten = true },
            .argument("--format") { (query, format: OutputFormat) in query.format = format },
        ] + RepositoryFilterOptions.directEntries(\.repository) + PagerOptions.directEntries(\.pager)
            + StoreOptions.directEntries(\.store)
    )
}
