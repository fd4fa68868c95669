import ArgumentParser

/// `--format` of `commitsctl query`.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    /// Aligned columns fitted to the terminal width, for people.
    case table
    /// `sha date author  subject`, one line per commit.
    case oneline
    /// One JSON array of objects (fields: docs/QUERY.md).
    case json
    /// One JSON object per line.
    case ndjson
    /// RFC 4180 CSV with a header row.
    case csv
}

/// `--format` of the report commands (`authors`, `stats`, `status`): the
/// same names as `query`'s, table first because reports are read by people.
enum ReportFormat: String, CaseIterable, ExpressibleByArgument {
    case table, oneline, json, ndjson, csv
}
