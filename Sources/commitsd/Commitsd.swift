import ArgumentParser
import Foundation
import MirrorCore
import MirrorPostgreSQL
import MirrorSQLite

@main
struct Commitsd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commitsd",
        abstract: "Keep the configured repositories mirrored (the commits-mirror service).",
        discussion: """
            Runs `serve` unless told otherwise. Exit status: 0 stopped cleanly (SIGTERM/SIGINT) or \
            the configuration is valid (--check-config); 1 start-up failed (e.g. the SQLite store cannot \
            be opened; a PostgreSQL store is waited for); 2 bad configuration.
            """,
        version: MirrorVersion.current,
        subcommands: [Serve.self],
        defaultSubcommand: Serve.self
    )

    /// Usage errors get the same one line (`commitsd: error: …`) as every other
    /// error, so a unit's journal shows the whole reason; exit statuses are ArgumentParser's.
    static func main() async {
        MallocArenas.limit()
        // The store drivers this program links; StoreLocation picks one by the location's kind.
        StoreDrivers.register(sqlite: SQLiteDriver())
        StoreDrivers.register(postgreSQL: PostgreSQLDriver())
        PackCommitIndexes.registerSQLite()
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                let message = fullMessage(for: error)
                if !message.isEmpty { print(message) }
            } else {
                let line = message(for: error).split(whereSeparator: \.isNewline)
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
                if !line.isEmpty { FileHandle.standardError.write(Data("commitsd: error: \(line)\n".utf8)) }
            }
            Foundation.exit(code.rawValue)
        }
    }
}
