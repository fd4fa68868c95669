import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore

/// `mailmap: PATH` in the configuration file: a path like `store`, checked
/// when loaded, read when a query command uses it.
@Suite struct MailmapConfigurationTests: ConfigurationParsing {
    @Test func aRelativePathIsTheConfigurationsDirectorys() throws {
        let relative = try parse("repositories: [acme/widgets]\nmailmap: people.mailmap\n")
        #expect(relative.mailmap == "/etc/commits-mirror/people.mailmap")
        #expect(relative.mailmapLine == 2)
        #expect(try parse("mailmap: /srv/.mailmap\nrepositories: [acme/widgets]\n").mailmap == "/srv/.mailmap")
        #expect(try parse("repositories: [acme/widgets]\n").mailmap == nil)
    }

    @Test(arguments: [
        ("mailmap:\n", "cfg.yaml:2: mailmap: has no value; expected the path of a git .mailmap file"),
        ("mailmap: [a, b]\n", "cfg.yaml:2: mailmap: is a list; expected the path of a git .mailmap file"),
    ])
    func aMailmapThatIsNotAPathIsRefused(line: String, message: String) {
        #expect(throws: ConfigurationError.self) { try parse("repositories: [acme/widgets]\n" + line) }
        #expect((try? parse("repositories: [acme/widgets]\n" + line)) == nil)
        do {
            _ = try parse("repositories: [acme/widgets]\n" + line)
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func theFileIsReadWhenUsedAndAMissingOneNamesTheKey() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("people.mailmap", "Ada Lovelace <ada@example.com> <countess@example.com>\n")
        let found = try MirrorConfiguration.parse(
            yaml: "repositories: [acme/widgets]\nmailmap: people.mailmap\n",
            source: "cfg.yaml", relativeTo: directory.url.path)
        let mailmap = try #require(try found.loadMailmap())
        #expect(mailmap == (try Mailmap(parsing: "Ada Lovelace <ada@example.com> <countess@example.com>\n")))
        let missing = try MirrorConfiguration.parse(
            yaml: "repositories: [acme/widgets]\nmailmap: gone.mailmap\n",
            source: "cfg.yaml", relativeTo: directory.url.path)
        #expect(
            throws: ConfigurationError(
                file: "cfg.yaml", line: 2, key: "mailmap",
                problem: "\(directory.path("gone.mailmap")) does not exist",
                expected: "the path of a git .mailmap file (gitmailmap(5))")
        ) {
            try missing.loadMailmap()
        }
    }
}
