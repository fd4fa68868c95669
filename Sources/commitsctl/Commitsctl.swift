import ArgumentParser
import Foundation
import MirrorCore
import MirrorPostgreSQL
import MirrorSQLite

@main
struct Commitsctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commitsctl",
        abstract: "Mirror GitHub repositories' commit history into SQLite or PostgreSQL and query it.",
        version: MirrorVersion.current,
        subcommands: [
            Sync.self, Query.self, Show.self, Authors.self, Stats.self, Status.self, Repos.self, Import.self, Backup.self, Check.self,
            Prune.self, CopyStore.self,
        ]
    )

    /// git log habits first (`-5`), then ArgumentParser; usage errors get the
    /// same one-line `commitsctl: error: …` as every other error.
    static func main() async {
        MallocArenas.limit()
        // The store drivers this program links; StoreLocation picks one by the location's kind.
        StoreDrivers.register(sqlite: SQLiteDriver())
        StoreDrivers.register(postgreSQL: PostgreSQLDriver())
        let arguments = GitLogArguments.normalize(Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = code == .success ? fullMessage(for: error) : message(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
            } else if !message.isEmpty {
                let line = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty }.joined(separator: "; ")
                printError(line)
            }
            Foundation.exit(code.rawValue)
        }
    }
}
