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

extension ReportFormat {
    /// Writes a report's `rows` in this format: a table of `columns` (a row's
    /// `cells` each), a line each (`oneline`), or records of `fields`.
    func write<Row>(
        _ rows: [Row], columns: [TextTable.Column], cells: (Row) -> [String], oneline: (Row) -> String,
        fields: RecordFields<Row>, to output: OutputWriter
    ) {
        switch self {
        case .table:
            var table = TextTable(columns)
            for row in rows { table.append(cells(row)) }
            for line in table.render(width: Terminal.outputWidth) { output.line(line) }
        case .oneline:
            for row in rows { output.line(oneline(row)) }
        case .json, .ndjson, .csv:
            RecordWriter.write(rows, fields: fields, as: RecordFormat(self)!, to: output)
        }
    }
}
