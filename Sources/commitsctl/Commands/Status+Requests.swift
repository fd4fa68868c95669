import Foundation
import MirrorCore

/// `commitsctl status --requests`: what each token spent in the last hour.
extension Commitsctl.Status {
    /// One row of `status --requests --format json`.
    struct SpentRow: Encodable {
        var token: String
        var kind: String
        var requests: Int
        var notModified: Int
        var points: Int

        enum CodingKeys: String, CodingKey, CaseIterable {
            case token, kind, requests, notModified = "not_modified", points
        }

        var csvFields: [String] { [token, kind, String(requests), String(notModified), String(points)] }
    }

    static func printSpentRequests(_ spent: [MirrorReader.SpentRequests], format: ReportFormat) throws {
        let rows = spent.map {
            SpentRow(
                token: $0.token, kind: $0.kind.rawValue, requests: $0.tally.requests, notModified: $0.tally.notModified,
                points: $0.tally.points)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        switch format {
        case .table:
            guard !rows.isEmpty else {
                print("no requests recorded in the last hour")
                return
            }
            var table = TextTable([
                .init(title: "TOKEN", flexible: true, minimumWidth: 16), .init(title: "KIND"),
                .init(title: "REQUESTS", numeric: true), .init(title: "NOT MODIFIED", numeric: true),
                .init(title: "POINTS", numeric: true),
            ])
            for row in rows {
                table.append([row.token, row.kind, String(row.requests), String(row.notModified), String(row.points)])
            }
            for (token, tallies) in Dictionary(grouping: spent, by: \.token).sorted(by: { $0.key < $1.key }) {
                let total = tallies.map(\.tally).reduce(RequestTally(), +)
                table.append([token, "all", String(total.requests), String(total.notModified), String(total.points)])
            }
            for line in table.render(width: Terminal.outputWidth) { print(line) }
        case .oneline:
            for (token, tallies) in Dictionary(grouping: spent, by: \.token).sorted(by: { $0.key < $1.key }) {
                let total = tallies.map(\.tally).reduce(RequestTally(), +)
                let kinds = tallies.map { "\($0.kind.rawValue) \($0.tally.requests)" }.joined(separator: ", ")
                print(
                    TextCleaning.singleLine(
                        "\(token): \(plural(total.requests, "request")) in the last hour (\(kinds); \(total.notModified) not modified), \(plural(total.points, "point"))"
                    ))
            }
        case .json:
            encoder.outputFormatting.insert(.prettyPrinted)
            print(String(decoding: try encoder.encode(rows), as: UTF8.self))
        case .ndjson:
            for row in rows { print(String(decoding: try encoder.encode(row), as: UTF8.self)) }
        case .csv:
            var text = CSV.row(SpentRow.CodingKeys.allCases.map(\.rawValue))
            for row in rows { text += CSV.row(row.csvFields) }
            print(text, terminator: "")
        }
    }
}
