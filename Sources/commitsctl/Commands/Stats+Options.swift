import ArgumentParser

extension Commitsctl.Stats {
    /// `stats`' options, declared once for its properties in Stats.swift and its table (see `Query.Options`).
    enum Options {
        typealias Declared<Value: Sendable> = DeclaredOption<Commitsctl.Stats, Value>

        static let format = Declared.option(.long("format"), default: ReportFormat.table, help: "How to print the statistics.") {
            $0.format = $1
        }
        static let branches = Declared.flag(.long("branches"), help: "One row per mirrored branch instead of per repository.") {
            $0.branches = $1
        }
    }

    /// The table `stats`' everyday command lines are parsed from.
    static let directParser = DirectParser<Self>(
        [Options.format.row, Options.branches.row],
        groups: [
            .group(RepositoryFilterOptions.directParser) { $0.repository = $1 }, .group(PagerOptions.directParser) { $0.pager = $1 },
            .group(StoreOptions.directParser) { $0.store = $1 },
        ])
}
