import MirrorCore

/// `a1b2c3d 2023-08-28 Joe Groff  Subject line`
enum OnelineFormat {
    static func line(for commit: CommitSummary) -> String {
        "\(commit.sha.prefix(7)) \(commit.committerDate.prefix(10)) \(commit.authorName)  \(commit.subject)"
    }
}
