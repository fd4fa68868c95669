import ArgumentParser
import Foundation
import MirrorCore
import MirrorPostgreSQL
import MirrorSQLite

@main
struct Commitsctl: AsyncParsableCommand {
    /// The program's name. Each subcommand names it as its `_superCommandName`
    /// too, which changes nothing where the tree is parsed from the root, but
    /// tells ArgumentParser, when `parseSubcommandFirst` parses a subcommand on
    /// its own, not to look for `--generate-completion-script` there: two more
    /// reflected parses on every run (docs/MEASURED-REASONS.md, "Measured reasons: a
    /// reading command's start-up"). The root parse, the fallback for anything else,
    /// still looks for it.
    static let name = "commitsctl"

    static let configuration = CommandConfiguration(
        commandName: name,
        abstract: "Mirror GitHub repositories' commit history into SQLite or PostgreSQL and query it.",
        version: MirrorVersion.current,
        subcommands: [
            Sync.self, Query.self, Show.self, Authors.self, Stats.self, Status.self, Repos.self, Import.self, Backup.self, Check.self,
            Prune.self, CopyStore.self, Paths.self, Tags.self,
        ]
    )

    /// The named subcommand parsed on its own when that yields one of its
    /// commands, else the whole tree. Parsing at the root reflects every
    /// subcommand's arguments, and in a statically linked binary each first
    /// protocol-conformance lookup scans every conformance record: a tenth of
    /// the work of `query` (docs/MEASURED-REASONS.md, "Measured reasons: a
    /// reading command's start-up"). Anything else (a usage error, or
    /// ArgumentParser's own help, version and completion commands) is parsed
    /// again from the root, so what is printed does not change.
    static func parseSubcommandFirst(_ arguments: [String]) throws -> any ParsableCommand {
        if let name = arguments.first,
            let subcommand = configuration.subcommands.first(where: { $0._commandName == name }),
            let command = try? subcommand.parseAsRoot(Array(arguments.dropFirst())),
            commandTree(subcommand).contains(ObjectIdentifier(type(of: command)))
        {
            return command
        }
        return try parseAsRoot(arguments)
    }

    /// The reading commands whose everyday arguments are parsed from a table, not by
    /// ArgumentParser's reflection (`DirectParser`); nil for anything else. Each is
    /// synchronous: `main` runs it without asking (DirectParserTests checks).
    static func parseDirectly(_ arguments: [String]) -> (any ParsableCommand)? {
        guard let name = arguments.first else { return nil }
        let rest = Array(arguments.dropFirst())
        switch name {
        case Query._commandName: return Query.directParser.parse(rest)
        case Show._commandName: return Show.directParser.parse(rest)
        case Authors._commandName: return Authors.directParser.parse(rest)
        case Stats._commandName: return Stats.directParser.parse(rest)
        default: return nil
        }
    }

    /// A command and every command below it.
    static func commandTree(_ command: any ParsableCommand.Type) -> Set<ObjectIdentifier> {
        command.configuration.subcommands.reduce(into: [ObjectIdentifier(command)]) { $0.formUnion(commandTree($1)) }
    }

    /// git log habits first (`-5`), then ArgumentParser; usage errors get the
    /// same one-line `commitsctl: error: …` as every other error.
    static func main() async {
        MallocArenas.limit()
        // The store drivers this program links; StoreLocation picks one by the location's kind.
        StoreDrivers.register(sqlite: SQLiteDriver())
        StoreDrivers.register(postgreSQL: PostgreSQLDriver())
        PackCommitIndexes.registerSQLite()
        let arguments = GitLogArguments.normalize(Array(CommandLine.arguments.dropFirst()))
        // As ArgumentParser prints it, without reflecting every command first.
        if arguments == ["--version"] {
            print(configuration.version)
            return
        }
        do {
            // Parsed from its table: a synchronous command, so no cast to find out (a failed
            // `as?` scans every conformance record of the binary).
            if var command = parseDirectly(arguments) {
                try command.run()
                return
            }
            var command = try parseSubcommandFirst(arguments)
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
