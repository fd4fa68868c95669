import Foundation
import MirrorCore
import MirrorSQLite
import MirrorTestSupport
import Testing

/// Issue #25 item 6: a mailmap that cannot be one (a FIFO, `/dev/zero`, a
/// directory, a missing, binary or huge file) is one line naming the file and
/// the problem, in bounded time, from `--mailmap` and from the configuration,
/// never a raw Foundation error.
@Suite struct MailmapFileCLITests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var db: String { directory.path("commits.sqlite") }

    func mailmaps() throws -> [(path: String, problem: String)] {
        let fifo = directory.path("fifo.mailmap")
        try makeFIFO(fifo)
        let binary = directory.path("binary.mailmap")
        try Data([0x41, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: binary))
        let huge = directory.path("huge.mailmap")
        FileManager.default.createFile(atPath: huge, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: huge))
        try handle.truncate(atOffset: UInt64(Mailmap.maximumSize + 1))
        try handle.close()
        return [
            (fifo, "is a FIFO (named pipe), not a regular file"),
            ("/dev/zero", "is a character device, not a regular file"),
            (directory.url.path, "is a directory, not a regular file"),
            (directory.path("missing.mailmap"), "does not exist"),
            (binary, "is not UTF-8 text"),
            (huge, "is larger than 4 MiB"),
        ]
    }

    @Test func aMailmapThatIsNoFileIsOneLineNamingIt() async throws {
        _ = try MirrorStore(path: db)
        for (path, problem) in try mailmaps() {
            for command in [["authors"], ["query", "--author", "x"]] {
                let result = try #require(
                    try await runBounded("commitsctl", command + ["--mailmap", path, "--db", db], limit: .seconds(60)),
                    "commitsctl \(command[0]) --mailmap \(path) did not finish")
                #expect(result.status == 1, "\(path): \(result.stderr)")
                #expect(
                    result.stderr
                        == "commitsctl: error: the mailmap file \(path) \(problem); expected a git .mailmap file (gitmailmap(5))\n")
            }
            let config = try directory.write("config.yaml", "store: \(db)\nrepositories: [acme/widgets]\nmailmap: \(path)\n")
            let configured = try #require(
                try await runBounded("commitsctl", ["authors", "--config", config], limit: .seconds(60)),
                "commitsctl authors with mailmap \(path) in the configuration did not finish")
            #expect(configured.status == 2, "\(path): \(configured.stderr)")
            #expect(
                configured.stderr
                    == "commitsctl: error: \(config):3: mailmap: \(path) \(problem); expected the path of a git .mailmap file (gitmailmap(5))\n"
            )
        }
    }
}
