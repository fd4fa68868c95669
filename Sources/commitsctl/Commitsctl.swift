import ArgumentParser
import MirrorCore

@main
struct Commitsctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commitsctl",
        abstract: "Mirror GitHub repositories' commit history into SQLite and query it.",
        version: MirrorVersion.current,
        subcommands: [Sync.self, Query.self, Show.self, Authors.self, Stats.self, Status.self, Import.self, Backup.self, Check.self, Prune.self]
    )

    /// git log habits first (`-5`), then ArgumentParser.
    static func main() async {
        await main(GitLogArguments.normalize(Array(CommandLine.arguments.dropFirst())))
    }
}
