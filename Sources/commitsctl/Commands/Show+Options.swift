import ArgumentParser

extension Commitsctl.Show {
    /// `show`'s arguments, declared once for its properties in Show.swift and its table (see `Query.Options`).
    enum Options {
        typealias Declared<Value: Sendable> = DeclaredOption<Commitsctl.Show, Value>

        static let sha = DeclaredArgument<Commitsctl.Show, String>(help: "The commit's sha, or a unique prefix of at least 4 hex digits.") {
            $0.sha = $1
        }
        static let format = Declared.option(
            .long("format"), default: ShowFormat.text,
            help:
                "How to print the commit: text (git show-like), query's table, oneline, json, ndjson or csv, or none (with --name-status or --name-only: the paths alone)."
        ) { $0.format = $1 }
        static let mailmap = Declared.optional(
            .long("mailmap"),
            help: ArgumentHelp(
                "Count the author's commits over every identity this git .mailmap file gives the person (default: the configuration's mailmap).",
                valueName: "file")
        ) { $0.mailmap = $1 }
        static let nameStatus = Declared.flag(
            .long("name-status"),
            help: "After the commit, list the paths it changed with git's status letters, as git show --name-status."
        ) { $0.nameStatus = $1 }
        static let nameOnly = Declared.flag(
            .long("name-only"), help: "After the commit, list the paths it changed, as git show --name-only."
        ) { $0.nameOnly = $1 }
    }

    /// The table `show`'s everyday command lines are parsed from.
    static let directParser = DirectParser<Self>(
        [Options.format.row, Options.mailmap.row, Options.nameStatus.row, Options.nameOnly.row], arguments: [Options.sha],
        groups: [.group(PagerOptions.directParser) { $0.pager = $1 }, .group(StoreOptions.directParser) { $0.store = $1 }])
}
