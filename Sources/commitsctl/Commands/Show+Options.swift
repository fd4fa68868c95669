import ArgumentParser

extension Commitsctl.Show {
    /// `show`'s arguments as a table (see `DirectParser`): the names and defaults
    /// declared on the properties in Show.swift and the option groups.
    static let directParser = DirectParser<Self>(
        defaults: {
            var show = Self()
            show.sha = ""
            show.format = .text
            show.mailmap = nil
            show.pager = .unset
            show.store = .unset
            return show
        },
        validate: { (show: inout Self) in
            // As ArgumentParser does: each option group as it is decoded, then the command.
            try show.pager.validate()
            try show.store.validateAsDecoded()
            try show.validate()
        },
        entries: [
            .argument("--format") { (show, format: ShowFormat) in show.format = format },
            .text("--mailmap") { $0.mailmap = $1 },
        ] + PagerOptions.directEntries(\.pager) + StoreOptions.directEntries(\.store),
        positionals: [
            { show, sha in
                show.sha = sha
                return true
            }
        ]
    )
}
