import MirrorTestSupport
import Foundation
import Testing

/// Issue #16 acceptance 2: people (mailmap) and co-authors on swift-evolution,
/// checked against counts computed here from the dataset itself.
@Suite(.enabled(if: PackagePaths.hasDataset, "../shared/datasets not present: skipping the swift-evolution people tests"))
struct PeopleTests {
    let directory: TemporaryDirectory
    var db: String { directory.path("commits.sqlite") }
    /// The dataset's commits: sha, author name and email, message.
    let dataset: [(sha: String, name: String, email: String, message: String)]

    init() async throws {
        directory = try TemporaryDirectory()
        let sim = try await SimulatorProcess.start(["--dataset", "swiftlang/swift-evolution=\(PackagePaths.swiftEvolutionDataset)"])
        defer { sim.stop() }
        let sync = try await run(
            "commitsctl",
            [
                "sync", "swiftlang/swift-evolution", "--db", directory.path("commits.sqlite"),
                "--api-url", sim.baseURL,
            ], environment: ["GITHUB_TOKEN": "test-token"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let text = try await runProgram("/bin/gzip", ["-dc", PackagePaths.swiftEvolutionDataset]).stdout
        dataset = text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let author = object["author"] as? [String: Any]
            else { return nil }
            return (
                object["sha"] as! String, author["name"] as! String, author["email"] as! String,
                object["message"] as! String
            )
        }
    }

    func json(_ arguments: [String]) async throws -> [[String: Any]] {
        let result = try await commitsctl(arguments + ["--db", db, "--format", "ndjson"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func mailmapMergesJoeGroffsAddresses() async throws {
        let addresses: Set = ["jgroff@apple.com", "arcata@gmail.com"]
        let expected = dataset.filter { addresses.contains($0.email.lowercased()) }.count
        #expect(expected == 324)
        let mailmap = try directory.write("mailmap", "# two addresses, one person\nJoe Groff <jgroff@apple.com> <arcata@gmail.com>\n")

        let people = try await json(["authors", "--mailmap", mailmap])
        let groffs = people.filter { person in
            (person["emails"] as? [String] ?? []).contains { addresses.contains($0.lowercased()) }
        }
        #expect(groffs.count == 1)
        #expect(groffs.first?["name"] as? String == "Joe Groff")
        #expect(groffs.first?["commits"] as? Int == expected)

        // show counts the person's commits over both addresses.
        let sha = try #require(dataset.first { $0.email.lowercased() == "arcata@gmail.com" }?.sha)
        let show = try await commitsctl(["show", sha, "--mailmap", mailmap, "--db", db])
        #expect(show.stdout.contains(" of \(expected) by this person (Joe Groff)"), "\(show.stdout)\(show.stderr)")

        // --author matches any identity of the person once a mailmap is in use, as git log --use-mailmap.
        let second = dataset.filter { $0.email.lowercased() == "arcata@gmail.com" }.count
        #expect(try await json(["query", "--author", "arcata@gmail.com"]).count == second)
        #expect(try await json(["query", "--author", "arcata@gmail.com", "--mailmap", mailmap]).count == expected)
    }

    /// Lines `Co-authored-by: NAME <EMAIL>`, found here with a regular expression.
    static func credits(_ message: String, name: String) -> Bool {
        let pattern = "(?im)^[ \\t]*co-authored-by:[ \\t]*" + NSRegularExpression.escapedPattern(for: name) + "[ \\t]*<"
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.firstMatch(in: message, range: NSRange(message.startIndex..., in: message)) != nil
    }

    @Test func coAuthorFindsTheCommitsCreditingJohnMcCall() async throws {
        let expected = Set(dataset.filter { Self.credits($0.message, name: "John McCall") }.map(\.sha))
        #expect(!expected.isEmpty)
        let found = try await json(["query", "--co-author", "John McCall"]).compactMap { $0["sha"] as? String }
        #expect(found.count == expected.count)
        #expect(Set(found) == expected)

        // show lists the co-authors, in message order.
        let sha = try #require(expected.first)
        let show = try await commitsctl(["show", sha, "--db", db])
        #expect(show.stdout.contains("\nCo-author:  John McCall <"), "\(show.stdout)")

        // authors counts authored and co-authored separately.
        let mccall = try await json(["authors"]).first { $0["name"] as? String == "John McCall" }
        #expect(mccall?["co_authored"] as? Int == expected.count)
        #expect(mccall?["commits"] as? Int == dataset.filter { $0.name == "John McCall" }.count)
    }
}
