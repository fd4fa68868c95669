import MirrorCore

/// `commitsctl status --requests`: what each token spent in the last hour.
extension Commitsctl.Status {
    /// json, ndjson and csv of `status --requests`: one row per token and kind (the table's
    /// per-token `all` totals are for people; a script sums the rows).
    static let spentFields = RecordFields<SpentRequests>([
        ("token", { .string($0.token) }),
        ("kind", { .string($0.kind.rawValue) }),
        ("requests", { .int($0.tally.requests) }),
        ("not_modified", { .int($0.tally.notModified) }),
        ("points", { .int($0.tally.points) }),
    ])

    static func printSpentRequests(_ spent: [SpentRequests], format: ReportFormat) {
        let output = OutputWriter()
        defer { output.flush() }
        switch format {
        case .table:
            guard !spent.isEmpty else {
                output.line("no requests recorded in the last hour")
                return
            }
            var table = TextTable([
                .init(title: "TOKEN", flexible: true, minimumWidth: 16), .init(title: "KIND"),
                .init(title: "REQUESTS", numeric: true), .init(title: "NOT MODIFIED", numeric: true),
                .init(title: "POINTS", numeric: true),
            ])
            for row in spent {
                table.append([
                    row.token, row.kind.rawValue, String(row.tally.requests), String(row.tally.notModified),
                    String(row.tally.points),
                ])
            }
            for (token, tallies) in Dictionary(grouping: spent, by: \.token).sorted(by: { $0.key < $1.key }) {
                let total = tallies.map(\.tally).reduce(RequestTally(), +)
                table.append([token, "all", String(total.requests), String(total.notModified), String(total.points)])
            }
            for line in table.render(width: Terminal.outputWidth) { output.line(line) }
        case .oneline:
            for (token, tallies) in Dictionary(grouping: spent, by: \.token).sorted(by: { $0.key < $1.key }) {
                let total = tallies.map(\.tally).reduce(RequestTally(), +)
                let kinds = tallies.map { "\($0.kind.rawValue) \($0.tally.requests)" }.joined(separator: ", ")
                output.line(
                    TextCleaning.singleLine(
                        "\(token): \(plural(total.requests, "request")) in the last hour (\(kinds); \(total.notModified) not modified), \(plural(total.points, "point"))"
                    ))
            }
        case .json, .ndjson, .csv:
            RecordWriter.write(spent, fields: spentFields, as: RecordFormat(format)!, to: output)
        }
    }
}
