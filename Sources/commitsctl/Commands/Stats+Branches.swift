import MirrorCore

/// `stats --branches`: one row per mirrored branch, counted over the commits its head reaches.
extension Commitsctl.Stats {
    static let branchFields = RecordFields<BranchStatistics>([
        ("repository", { .string($0.repository) }),
        ("branch", { .string($0.branch) }),
        ("state", { .string($0.state) }),
        ("commits", { .int($0.commits) }),
        ("merges", { .int($0.merges) }),
        ("authors", { .int($0.authors) }),
        ("first_commit_date", { .optional($0.firstCommitDate) }),
        ("last_commit_date", { .optional($0.lastCommitDate) }),
        ("last_sync_at", { .optional($0.lastSyncAt) }),
    ])

    /// `acme/widgets@release/1.0: 5 commits, 1 merge, 4 authors, 2024-03-01 to 2024-03-05, last sync never`, `, gone` when gone.
    static func oneline(_ branch: BranchStatistics) -> String {
        var line =
            "\(branch.repository)@\(branch.branch): \(plural(branch.commits, "commit")), "
            + "\(plural(branch.merges, "merge")), \(plural(branch.authors, "author"))"
        if let first = branch.firstCommitDate, let last = branch.lastCommitDate {
            line += ", \(first.prefix(10)) to \(last.prefix(10))"
        }
        line += ", last sync \(branch.lastSyncAt ?? "never")"
        if branch.state != "active" { line += ", \(branch.state)" }
        return TextCleaning.singleLine(line)
    }

    static func write(_ rows: [BranchStatistics], format: ReportFormat, to output: OutputWriter) {
        switch format {
        case .table:
            // STATE only when some branch is gone; narrow terminals leave out FIRST, then MERGES.
            let showState = rows.contains { $0.state != "active" }
            var columns: [TextTable.Column] = [
                .init(title: "REPOSITORY", flexible: true, minimumWidth: 16, isName: true), .init(title: "BRANCH"),
            ]
            if showState { columns.append(.init(title: "STATE")) }
            columns += [
                .init(title: "COMMITS", numeric: true), .init(title: "MERGES", numeric: true, dropOrder: 2),
                .init(title: "AUTHORS", numeric: true), .init(title: "FIRST", dropOrder: 1), .init(title: "LAST"),
                .init(title: "LAST SYNC"),
            ]
            var table = TextTable(columns)
            for row in rows {
                table.append(
                    [row.repository, row.branch] + (showState ? [row.state] : []) + [
                        String(row.commits), String(row.merges), String(row.authors),
                        row.firstCommitDate.map { String($0.prefix(10)) } ?? "-",
                        row.lastCommitDate.map { String($0.prefix(10)) } ?? "-", row.lastSyncAt ?? "never",
                    ])
            }
            for line in table.render(width: Terminal.outputWidth) { output.line(line) }
        case .oneline:
            for row in rows { output.line(oneline(row)) }
        case .json, .ndjson, .csv:
            RecordWriter.write(rows, fields: branchFields, as: RecordFormat(format)!, to: output)
        }
    }
}
