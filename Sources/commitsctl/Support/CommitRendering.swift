import MirrorCore

/// How commits are printed in each `--format`. The JSON/CSV field names and
/// their order are a documented interface (docs/QUERY.md): add fields at the
/// end, never rename or remove one.
enum CommitRendering {
    static let fields = RecordFields<CommitSummary>([
        ("sha", { .string($0.sha) }),
        ("subject", { .string($0.subject) }),
        ("message", { .string($0.message) }),
        ("author_name", { .string($0.author.name) }),
        ("author_email", { .string($0.author.email) }),
        ("author_login", { .optional($0.author.login) }),
        ("author_date", { .string($0.author.date) }),
        ("committer_name", { .string($0.committer.name) }),
        ("committer_email", { .string($0.committer.email) }),
        ("committer_login", { .optional($0.committer.login) }),
        ("committer_date", { .string($0.committer.date) }),
        ("parents", { .array($0.parents.map(JSONValue.string)) }),
        ("url", { .optional($0.url) }),
        ("repositories", { .array($0.repositories.map(JSONValue.string)) }),
    ])

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
