import ArgumentParser
import Foundation
import MirrorTestSupport
import Testing

@testable import commitsctl

/// The reading commands' arguments parsed from their tables (`DirectParser`)
/// must mean what ArgumentParser makes of them; whatever a table cannot settle
/// is left to it.
@Suite struct DirectParserTests {
    typealias Query = Commitsctl.Query
    typealias Show = Commitsctl.Show
    typealias Authors = Commitsctl.Authors
    typealias Stats = Commitsctl.Stats

    /// A command with a table: its direct parse and ArgumentParser's, as
    /// `commitsctl NAME …` runs them, each described value by value.
    struct Tabled: Sendable, CustomTestStringConvertible {
        let name: String
        let direct: @Sendable ([String]) -> String?
        let argumentParser: @Sendable ([String]) -> Result<String, any Error>
        let entries: [[String]]
        /// Each entry's names, kind and whether it repeats, as the help dump says them.
        let declarations: [[String]]
        let dumpedHelp: @Sendable () -> String
        /// Values to draw generated command lines from, positionals included.
        let values: [String]
        /// How many of 6,000 generated lines the table must accept for the check to mean
        /// something (most random lines are refused somewhere; `show`'s need exactly one sha).
        let minimumAccepted: Int
        /// The shortest command line the table parses: the positionals it requires.
        let required: [String]
        /// A command line the table parses that any one option may join (`--invert-grep` needs a `--grep`).
        let companions: [String]

        init<Command: ParsableCommand>(
            _ command: Command.Type, _ parser: DirectParser<Command>, values: [String], minimumAccepted: Int,
            required: [String] = [], companions: [String]? = nil
        ) {
            name = Command._commandName
            direct = { parser.parse($0).map { String(describing: $0) } }
            argumentParser = { arguments in Result { String(describing: try Command.parseAsRoot(arguments)) } }
            entries = parser.entries.map(\.names)
            declarations = parser.entries.map(DirectParserTests.declaration)
            dumpedHelp = { Command._dumpHelp() }
            self.values = values
            self.minimumAccepted = minimumAccepted
            self.required = required
            self.companions = companions ?? required
        }

        var testDescription: String { name }

        static let query = Tabled(
            Query.self, Query.directParser,
            values: [
                "Joe Groff", "5", "-5", "0", "-1", "json", "csv", "yaml", "", "2024-05-01", "yesterday", "acme/widgets", "x=y",
                "-", "école", "release/*", "--grep",
            ], minimumAccepted: 600, companions: ["--grep", "fix"])
        static let show = Tabled(
            Show.self, Show.directParser, values: ["056c7a8", "056C", "abc", "text", "json", "yaml", "", "-", "/m", "--db"],
            minimumAccepted: 30, required: ["056c7a8"])
        static let authors = Tabled(
            Authors.self, Authors.directParser,
            values: ["5", "0", "-1", "x", "json", "csv", "yaml", "", "acme/widgets", "not a name", "/m", "-", "--top"],
            minimumAccepted: 300)
        static let stats = Tabled(
            Stats.self, Stats.directParser,
            values: ["json", "oneline", "yaml", "", "acme/widgets", "not a name", "/tmp/a.sqlite", "-", "--format"],
            minimumAccepted: 300)
        static let all = [query, show, authors, stats]
    }

    @Test(arguments: [
        ["--author", "Joe Groff", "-n", "50"],
        [],
        ["--author=Joe", "--author", "Doug", "--grep", "fix", "--grep=école", "--all-match", "-n50", "--db", "/tmp/a.sqlite"],
        ["--format", "json", "--reverse", "--since", "2024-05-01", "--until", "2 weeks ago"],
        ["--co-author", "x", "--merges", "-i", "--repo", "acme/widgets", "--branch", "release/*", "--branch=main"],
        ["--include-rewritten", "--no-pager", "--config", "/etc/commits-mirror/config.yaml", "--mailmap", "/m", "--committer", "a=b"],
        ["--grep", "x", "--invert-grep", "--no-merges", "--after=yesterday", "--before", "noon", "--limit", "0", "--follow"],
        ["--max-count=7", "--regexp-ignore-case", "--format=ndjson"],
    ])
    func everydayQueriesAreParsedDirectly(_ arguments: [String]) throws {
        try Self.expectParsedDirectly(Tabled.query, arguments)
    }

    @Test(arguments: [
        ["056c7a8"], ["056c7a8", "--format", "json"], ["--db=/tmp/a.sqlite", "056C7A8", "--no-pager"],
        ["--mailmap", "/m", "--config", "/etc/c.yaml", "056c", "--format=oneline"],
    ])
    func everydayShowsAreParsedDirectly(_ arguments: [String]) throws {
        try Self.expectParsedDirectly(Tabled.show, arguments)
    }

    @Test(arguments: [
        [], ["--top", "10"], ["--repo", "acme/widgets", "--format", "json", "--mailmap=/m"], ["--no-pager", "--top=0", "--db", "/a"],
    ])
    func everydayAuthorsAreParsedDirectly(_ arguments: [String]) throws {
        try Self.expectParsedDirectly(Tabled.authors, arguments)
    }

    @Test(arguments: [[], ["--branches"], ["--repo=acme/widgets", "--format", "json"], ["--config", "/etc/c.yaml", "--no-pager"]])
    func everydayStatsAreParsedDirectly(_ arguments: [String]) throws {
        try Self.expectParsedDirectly(Tabled.stats, arguments)
    }

    @Test(arguments: [["--top", "-1"], ["--top", "x"], ["--repo", "not a name"], ["--format", "yaml"], ["acme/widgets"]])
    func whatTheAuthorsTableCannotSettleIsLeftToArgumentParser(_ arguments: [String]) {
        #expect(Tabled.authors.direct(arguments) == nil)
    }

    static func expectParsedDirectly(_ command: Tabled, _ arguments: [String]) throws {
        let direct = try #require(command.direct(arguments), "left to ArgumentParser: \(arguments)")
        #expect(direct == (try command.argumentParser(arguments).get()))
    }

    @Test(arguments: [
        ["--help"], ["-h"], ["help"], ["--version"], ["--author"], ["--author", "--grep", "x"], ["-n", "-5"], ["--limit", "x"],
        ["--format", "yaml"], ["--since", "a", "--since", "b"], ["--reverse", "--reverse"], ["--reverse=yes"], ["--", "--author"],
        ["positional"], ["--merges", "--no-merges"], ["--db", ""], ["--db="], ["-in5"], ["--bogus"], ["--invert-grep"],
        ["-n=5"], ["-x"], ["-"], ["--"], ["--follow", "--format", "json"], ["--repo", "not a name"], ["--since", "the day after"],
        ["--limit", "-1"], ["--limit=-1"], ["--generate-completion-script", "bash"],
    ])
    func whatTheQueryTableCannotSettleIsLeftToArgumentParser(_ arguments: [String]) {
        #expect(Tabled.query.direct(arguments) == nil)
    }

    @Test(arguments: [
        [], ["056c7a8", "abcd"], ["xyz1"], ["abc"], ["056c7a8", "--format", "yaml"], ["--", "056c7a8"], ["-h"],
        ["056c7a8", "--format", "json", "--format", "csv"], ["056c7a8", "--bogus"], ["056c7a8", "-"],
    ])
    func whatTheShowTableCannotSettleIsLeftToArgumentParser(_ arguments: [String]) {
        #expect(Tabled.show.direct(arguments) == nil)
    }

    /// Command lines drawn from every declared name and awkward values: each one
    /// a table accepts, ArgumentParser accepts with the same values.
    @Test(arguments: Tabled.all)
    func agreesWithArgumentParserOnGeneratedCommandLines(_ command: Tabled) {
        let names = command.entries.flatMap { $0 } + ["--help", "-h", "--bogus", "--", "-nx", "-n5", "-i5"]
        var random = SplitMix(seed: 30)
        var accepted = 0
        for _ in 0..<6_000 {
            var arguments: [String] = []
            for _ in 0..<Int.random(in: 0...7, using: &random) {
                let name = names.randomElement(using: &random)!
                let value = command.values.randomElement(using: &random)!
                switch Int.random(in: 0..<5, using: &random) {
                case 0: arguments.append(name)
                case 1: arguments.append("\(name)=\(value)")
                case 2: arguments.append(value)
                default: arguments += [name, value]
                }
            }
            guard let direct = command.direct(arguments) else { continue }
            accepted += 1
            switch command.argumentParser(arguments) {
            case .success(let parsed): #expect(direct == parsed, "\(arguments)")
            case .failure(let error): Issue.record("the table accepted \(arguments); ArgumentParser: \(error)")
            }
        }
        #expect(accepted >= command.minimumAccepted, "only \(accepted) of 6,000 generated command lines parsed directly")
    }

    /// The options and flags ArgumentParser declares for a command, as its help dump lists them.
    struct HelpDump: Decodable {
        struct Command: Decodable { var arguments: [Argument] }
        struct Argument: Decodable {
            var kind: String
            var names: [Name]?
            var isRepeating: Bool
            var allValues: [String]?

            var spellings: [String] { (names ?? []).map { ($0.kind == "short" ? "-" : "--") + $0.name } }
            /// Neither a positional nor ArgumentParser's own help and version.
            var isDeclaredOption: Bool {
                kind != "positional" && !spellings.contains { ["--help", "-h", "--version"].contains($0) }
            }
        }
        struct Name: Decodable {
            var kind: String
            var name: String
        }
        var command: Command

        init(of command: Tabled) throws {
            self = try JSONDecoder().decode(Self.self, from: Data(command.dumpedHelp().utf8))
        }
    }

    /// A table names exactly the options ArgumentParser declares, each with
    /// its kind (flag or option) and whether it repeats, so a new option is not
    /// silently left to the slow path, nor an old one kept.
    @Test(arguments: Tabled.all)
    func declaresEveryOptionOfTheCommand(_ command: Tabled) throws {
        let declared = Set(
            try HelpDump(of: command).command.arguments.filter(\.isDeclaredOption).map { argument in
                argument.spellings.sorted() + [argument.kind, "repeats: \(argument.isRepeating)"]
            })
        #expect(declared == Set(command.declarations))
    }

    /// Every option ArgumentParser declares, given alone under each of its names, is
    /// parsed by the table to exactly what ArgumentParser makes of it, or left to
    /// ArgumentParser, and for some value it is parsed by the table; given nothing,
    /// the two agree on every default.
    @Test(arguments: Tabled.all)
    func parsesEveryDeclaredOptionAndDefaultAsArgumentParserDoes(_ command: Tabled) throws {
        let defaults = try #require(command.direct(command.required), "the table refused \(command.required)")
        #expect(defaults == (try command.argumentParser(command.required).get()))
        for option in try HelpDump(of: command).command.arguments where option.isDeclaredOption {
            let values = option.kind == "flag" ? [nil] : (option.allValues ?? []) + ["5", "yesterday", "acme/widgets"]
            var parsedByTheTable = false
            for name in option.spellings {
                for value in values {
                    let arguments = command.companions + [name] + (value.map { [$0] } ?? [])
                    guard let direct = command.direct(arguments) else { continue }
                    parsedByTheTable = true
                    #expect(direct == (try command.argumentParser(arguments).get()), "\(arguments)")
                }
            }
            #expect(parsedByTheTable, "\(command.name) \(option.spellings): never parsed by the table")
        }
    }

    static func declaration(_ entry: TableEntry) -> [String] {
        let kind = entry.kind == .flag ? "flag" : "option"
        return entry.names.sorted() + [kind, "repeats: \(entry.repeats)"]
    }

    /// `main` runs a directly parsed command with the synchronous `run()`, which an
    /// async command would not implement.
    @Test(arguments: [["query", "-n", "1"], ["show", "056c7a8"], ["authors"], ["stats"]])
    func directlyParsedCommandsAreSynchronous(_ arguments: [String]) throws {
        let command = try #require(Commitsctl.parseDirectly(arguments))
        #expect(!(type(of: command) is any AsyncParsableCommand.Type))
    }

    /// git log's `-5` knows which options take a separate value from the same table.
    @Test func gitLogNumbersSkipTheValuesOfTabledOptions() {
        #expect(GitLogArguments.normalize(["query", "--branch", "-5"]) == ["query", "--branch", "-5"])
        #expect(GitLogArguments.normalize(["query", "--reverse", "-5"]) == ["query", "--reverse", "-n", "5"])
    }
}
