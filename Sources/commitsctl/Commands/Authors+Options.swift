import ArgumentParser

extension Commitsctl.Authors {
    /// `authors`' options, declared once for its properties in Authors.swift and its table (see `Query.Options`).
    enum Options {
        typealias Declared<Value: Sendable> = DeclaredOption<Commitsctl.Authors, Value>

        static let top = Declared.optional(
            .long("top"), help: ArgumentHelp("Show only the N authors with the most commits.", valueName: "n")
        ) { $0.top = $1 }
        static let format = Declared.option(.long("format"), default: ReportFormat.table, help: "How to print the authors.") {
            $0.format = $1
        }
        static let mailmap = Declared.optional(
            .long("mailmap"),
            help: ArgumentHelp(
                "Merge identities with this git .mailmap file, and by GitHub login (default: the configuration's mailmap).",
                valueName: "file")
        ) { $0.mailmap = $1 }
        static let pathsHelp = ArgumentHelp(
            "Only commits that changed these paths, as git shortlog -sne --no-merges -- PATH… counts them (pathspecs as query's).",
            valueName: "path")
    }

    /// The table `authors`' everyday command lines are parsed from.
    static let directParser = DirectParser<Self>(
        [Options.top.row, Options.format.row, Options.mailmap.row],
        groups: [
            .group(RepositoryFilterOptions.directParser) { $0.repository = $1 }, .group(PagerOptions.directParser) { $0.pager = $1 },
            .group(StoreOptions.directParser) { $0.store = $1 },
        ],
        unparsedDefaults: { $0.paths = [] })
}
