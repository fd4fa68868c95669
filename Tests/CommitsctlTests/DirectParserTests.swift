import ArgumentParser
import Foundation
import MirrorTestSupport
import Testing

@testable import commitsctl

/// `query`'s arguments parsed from its table (`DirectParser`) must mean what
/// ArgumentParser makes of them; whatever the table cannot settle is left to it.
@Suite struct DirectParserTests {
    typealias Query = Commitsctl.Query

    /// ArgumentParser's parse, as `commitsctl query …` runs it.
    static func argumentParser(_ arguments: [String]) -> Result<String, any Error> {
        Result { String(describing: try Query.parseAsRoot(arguments)) }
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
    func everydayArgumentsAreParsedDirectly(_ arguments: [String]) throws {
        let direct = try #require(Query.directParser.parse(arguments), "left to ArgumentParser: \(arguments)")
        #expect(String(describing: direct) == (try Self.argumentParser(arguments).get()))
    }

    @Test(arguments: [
        ["--help"], ["-h"], ["help"], ["--version"], ["--author"], ["--author", "--grep", "x"], ["-n", "-5"], ["--limit", "x"],
        ["--format", "yaml"], ["--since", "a", "--since", "b"], ["--reverse", "--reverse"], ["--reverse=yes"], ["--", "--author"],
        ["positional"], ["--merges", "--no-merges"], ["--db", ""], ["--db="], ["-in5"], ["--bogus"], ["--invert-grep"],
        ["-n=5"], ["-x"], ["-"], ["--"], ["--follow", "--format", "json"], ["--repo", "not a name"], ["--since", "the day after"],
        ["--limit", "-1"], ["--limit=-1"], ["--generate-completion-script", "bash"],
    ])
    func whatTheTableCannotSettleIsLeftToArgumentParser(_ arguments: [String]) {
        #expect(Query.directParser.parse(arguments) == nil)
    }

    /// Command lines drawn from every declared name and awkward values: each one
    /// the table accepts, ArgumentParser accepts with the same values.
    @Test func agreesWithArgumentParserOnGeneratedCommandLines() {
        let names = Query.directParser.entries.flatMap(\.names) + ["--help", "-h", "--bogus", "--", "-nx", "-n5", "-i5"]
        let values = [
            "Joe Groff", "5", "-5", "0", "-1", "json", "csv", "yaml", "", "2024-05-01", "yesterday", "acme/widgets", "x=y", "-",
            "école", "release/*", "--grep",
        ]
        var random = SplitMix(seed: 30)
        var accepted = 0
        for _ in 0..<3_000 {
            var arguments: [String] = []
            for _ in 0..<Int.random(in: 0...7, using: &random) {
                let name = names.randomElement(using: &random)!
                switch Int.random(in: 0..<4, using: &random) {
                case 0: arguments.append(name)
                case 1: arguments.append("\(name)=\(values.randomElement(using: &random)!)")
                default: arguments += [name, values.randomElement(using: &random)!]
                }
            }
            guard let direct = Query.directParser.parse(arguments) else { continue }
            accepted += 1
            switch Self.argumentParser(arguments) {
            case .success(let parsed): #expect(String(describing: direct) == parsed, "\(arguments)")
            case .failure(let error): Issue.record("the table accepted \(arguments); ArgumentParser: \(error)")
            }
        }
        // Most random lines are refused somewhere; enough must get through for the check to mean something.
        #expect(accepted > 300, "only \(accepted) of 3,000 generated command lines parsed directly")
    }

    /// The table names exactly the options ArgumentParser declares, each with
    /// its kind (flag or option) and whether it repeats, so a new option is not
    /// silently left to the slow path, nor an old one kept.
    @Test func declaresEveryOptionOfTheCommand() throws {
        struct Dump: Decodable {
            struct Command: Decodable { var arguments: [Argument] }
            struct Argument: Decodable, Hashable {
                var kind: String
                var names: [Name]?
                var isRepeating: Bool
            }
            struct Name: Decodable, Hashable {
                var kind: String
                var name: String
            }
            var command: Command
        }
        let dump = try JSONDecoder().decode(Dump.self, from: Data(Query._dumpHelp().utf8))
        let declared = Set(
            dump.command.arguments.compactMap { argument -> String? in
                let names = (argument.names ?? []).map { ($0.kind == "short" ? "-" : "--") + $0.name }.sorted()
                guard names != ["--help", "-h"] else { return nil }
                return "\(names) \(argument.kind) repeats: \(argument.isRepeating)"
            })
        let tabled = Set(
            Query.directParser.entries.map { entry in
                let kind: String
                switch entry.action {
                case .flag: kind = "flag"
                case .value: kind = "option"
                }
                return "\(entry.names.sorted()) \(kind) repeats: \(entry.repeats)"
            })
        #expect(declared == tabled)
    }

    /// `main` runs a directly parsed command with the synchronous `run()`, which an
    /// async command would not implement.
    @Test func directlyParsedCommandsAreSynchronous() throws {
        let command = try #require(Commitsctl.parseDirectly(["query", "-n", "1"]))
        #expect(!(type(of: command) is any AsyncParsableCommand.Type))
    }

    /// git log's `-5` knows which options take a separate value from the same table.
    @Test func gitLogNumbersSkipTheValuesOfTabledOptions() {
        #expect(GitLogArguments.normalize(["query", "--branch", "-5"]) == ["query", "--branch", "-5"])
        #expect(GitLogArguments.normalize(["query", "--reverse", "-5"]) == ["query", "--reverse", "-n", "5"])
    }
}
