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
            show.pager = PagerOptions()
            show.pager.noPager = false
            show.store = StoreOptions()
            show.store.path = nil
            show.store.configuration = ConfigOptions()
            show.store.configuration.config = nil
            return show
        },
        validate: { (show: inout Self) in
            // As ArgumentParser does: each option group as it is decoded, then the command.
            try show.pager.validate()
            try show.store.configuration.validate()
            try show.store.validate()
            try show.validate()
        },
        entries: [
            .argument("--format") { (show, format: ShowFormat) in show.format = format },
            .text("--mailmap") { $0.mailmap = $1 },
            .flag("--no-pager") { $0.pager.noPager = true },
            .text("--db") { $0.store.path = $1 },
            .text("--config") { $0.store.configuration.config = $1 },
        ],
        positionals: [
            { show, sha in
                show.sha = sha
                return true
            }
        ]
    )
}
