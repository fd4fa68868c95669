import MirrorCore

/// How commits are printed in each `--format`. The JSON/CSV field names and
/// their order are a documented interface (docs/QUERY.md): add fields at the
/// end, never rename or remove one.
enum CommitRendering {
    static let fieldNames = [
        "sha", "subject", "message",
        "author_name", "author_email", "author_login", "author_date",
        "committer_name", "committer_email", "committer_login", "committer_date",
        "parents", "url", "repositories",
    ]

    static func fields(_ commit: CommitSummary) -> [(String, JSONValue)] {
        let values: [JSONValue] = [
            .string(commit.sha), .string(commit.subject), .string(commit.message),
            .string(commit.author.name), .string(commit.author.email), .optional(commit.author.login),
            .string(commit.author.date),
            .string(commit.committer.name), .string(commit.committer.email), .optional(commit.committer.login),
            .string(commit.committer.date),
            .array(commit.parents.map(JSONValue.string)), .optional(commit.url),
            .array(commit.repositories.map(JSONValue.string)),
        ]
        return Array(zip(fieldNames, values))
    }

    /// `a1b2c3d 2023-08-28 Joe Groff  Subject line`
    static func oneline(_ commit: CommitSummary) -> String {
        TextCleaning.singleLine(
            "\(commit.sha.prefix(7)) \(commit.committer.date.prefix(10)) \(commit.author.name)  \(commit.subject)")
    }

    static func table(_ commits: [CommitSummary], width: Int?) -> [String] {
        var table = TextTable([
            .init(title: "SHA"),
            .init(title: "DATE"),
            .init(title: "AUTHOR", flexible: true, minimumWidth: 8, isName: true),
            .init(title: "SUBJECT", flexible: true, minimumWidth: 12),
        ])
        for commit in commits {
            table.append([
                String(commit.sha.prefix(7)), String(commit.committer.date.prefix(10)),
                commit.author.name, commit.subject,
            ])
        }
        return table.render(width: width)
    }
}

/// Streams records (flat objects) in one of the machine formats.
struct RecordPrinter {
    enum Kind { case json, ndjson, csv }

    let kind: Kind
    let fieldNames: [String]
    let output: OutputWriter
    private var count = 0

    init(_ kind: Kind, fieldNames: [String], output: OutputWriter) {
        self.kind = kind
        self.fieldNames = fieldNames
        self.output = output
    }

    mutating func begin() {
        switch kind {
        case .json: output.write("[")
        case .ndjson: break
        case .csv: output.write(CSV.row(fieldNames))
        }
    }

    mutating func print(_ fields: [(String, JSONValue)]) {
        switch kind {
        case .json:
            output.write((count == 0 ? "\n  " : ",\n  ") + JSONValue.object(fields).pretty(depth: 1))
        case .ndjson:
            output.line(JSONValue.object(fields).compact)
        case .csv:
            output.write(CSV.row(fields.map { CSV.text($0.1) }))
        }
        count += 1
    }

    mutating func end() {
        if kind == .json { output.line(count == 0 ? "]" : "\n]") }
    }
}

extension RecordPrinter.Kind {
    /// The machine formats of the report commands (`.table` is handled by the caller).
    init(_ format: ReportFormat) {
        switch format {
        case .json, .table, .oneline: self = .json
        case .ndjson: self = .ndjson
        case .csv: self = .csv
        }
    }
}
