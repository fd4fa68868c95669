import ArgumentParser
import MirrorCore

extension Commitsctl {
    struct Query: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List mirrored commits, newest first, like git log --oneline."
        )

        @Option(help: "Only commits whose author name or email contains this text, ignoring case.")
        var author: String?

        @Option(help: "Only commits of this repository (OWNER/NAME; default: all).")
        var repo: String?

        @Option(name: [.short, .customLong("limit")], help: "Show at most this many commits.")
        var limit: Int?

        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
            if let repo, RepositoryName(parsing: repo) == nil {
                throw ValidationError("--repo '\(repo)' is not a repository name; expected \(RepositoryName.expectedForm)")
            }
        }

        func run() async throws {
            try await reportingErrors {
                let mirror = try MirrorStore(path: store.resolvedPath, access: .readOnly)
                let filter = CommitFilter(author: author, repository: repo.flatMap(RepositoryName.init(parsing:)), limit: limit)
                var output = ""
                for commit in try mirror.commits(matching: filter) {
                    output += OnelineFormat.line(for: commit)
                    output += "\n"
                }
                print(output, terminator: "")
            }
        }
    }
}
