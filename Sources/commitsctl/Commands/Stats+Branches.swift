import MirrorCore

/// `stats --branches`: one row per mirrored branch, counted over the commits its head reaches.
extension Commitsctl.Stats {
    static let branchFields =
        RecordFields<BranchStatistics>([
            ("repository", { .string($0.repository) }),
            ("branch", { .string($0.branch) }),
            ("state", { .string($0.state) }),
        ]) + countFields.reading { $0.counts }

    /// `acme/widgets@release/1.0: 5 commits, 1 merge, 4 authors, 2024-03-01 to 2024-03-05, last sync never`, `, gone` when gone.
    static func oneline(_ branch: BranchStatistics) -> String {
        let line = "\(branch.repository)@\(branch.branch): " + counts(branch.counts)
        return TextCleaning.singleLine(branch.state != "active" ? line + ", \(branch.state)" : line)
    }

    static func write(_ rows: [BranchStatistics], format: ReportFormat, to output: OutputWriter) {
        // STATE only when some branch is gone.
        let showState = rows.contains { $0.state != "active" }
        var columns: [TextTable.Column] = [
            .init(title: "REPOSITORY", flexible: true, minimumWidth: 16, isName: true), .init(title: "BRANCH"),
        ]
        if showState { columns.append(.init(title: "STATE")) }
        columns += countColumns
        let cells = { (row: BranchStatistics) in [row.repository, row.branch] + (showState ? [row.state] : []) + countCells(row.counts) }
        format.write(rows, columns: columns, cells: cells, oneline: oneline, fields: branchFields, to: output)
    }
}
