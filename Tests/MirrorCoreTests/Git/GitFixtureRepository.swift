import Foundation
import Testing
import MirrorTestSupport

/// A bare repository built with real git for the conformance tests: merges,
/// an octopus merge, a second root merged in later, names and offsets from
/// all over, messages with and without a trailing newline, long bodies (so
/// git stores commits as deltas), then commits written by hand (an
/// `encoding ISO-8859-1` one, one with `gpgsig` and `mergetag` headers, one
/// whose message ends without a newline). Served from `root` as `repo.git`.
struct GitFixtureRepository {
    let directory: TemporaryDirectory
    var root: String { directory.path("served") }
    var path: String { root + "/repo.git" }

    static let people = [
        ("Ada Lovelace", "ada@example.com"), ("Zoë Ångström", "zoe@example.org"), ("Grace Hopper", "grace@navy.example"),
        ("李小龍", "lee@example.cn"), ("Alan Turing", "alan@example.org"),
    ]
    static let offsets = ["+0000", "+0530", "-0800", "+1245", "-0330", "+0100", "-1000"]

    /// - Parameter mainCommits: commits on main before the hand-written ones (merges and side branches come on top).
    init(mainCommits: Int = 160, extraConfig: [String] = []) async throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try await git(["init", "-q", "--bare", "-b", "main", path], inRepository: false)
        for setting in extraConfig { try await git(["config"] + setting.split(separator: " ").map(String.init)) }
        let stream = directory.path("history.fi")
        #expect(FileManager.default.createFile(atPath: stream, contents: Data(Self.fastImportStream(mainCommits: mainCommits))))
        try await shell("git -C '\(path)' fast-import --quiet < '\(stream)'")
        try await appendHandWrittenCommits()
        // Deltas between commits, deep and wide, as a long-lived server repository has them.
        try await git(["repack", "-adfq", "--window=250", "--depth=50"])
    }

    @discardableResult
    func git(_ arguments: [String], inRepository: Bool = true) async throws -> ProcessResult {
        let result = try await runProgram(
            "/usr/bin/git", (inRepository ? ["-C", path] : []) + arguments,
            environment: ["HOME": directory.path("."), "GIT_CONFIG_NOSYSTEM": "1", "TZ": "UTC"])
        guard result.status == 0 else { throw FixtureError("git \(arguments.joined(separator: " ")): \(result.stderr)") }
        return result
    }

    @discardableResult
    func shell(_ command: String) async throws -> ProcessResult {
        let result = try await runProgram(
            "/bin/sh", ["-c", command], environment: ["HOME": directory.path("."), "GIT_CONFIG_NOSYSTEM": "1"])
        guard result.status == 0 else { throw FixtureError("\(command): \(result.stderr)") }
        return result
    }

    /// A `git fast-import` stream: main with side branches merged back every 20
    /// commits, an octopus of three branches, and a second root merged at 3/4.
    static func fastImportStream(mainCommits: Int) -> [UInt8] {
        var out: [UInt8] = []
        var mark = 0
        var time = 1_500_000_000
        let body = (0..<30).map { "A long body line \($0) that many commits share, so git can store them as deltas." }
            .joined(separator: "\n")
        func commit(_ branch: String, from: Int? = nil, merges: [Int] = [], subject: String) -> Int {
            mark += 1
            time += 3_607
            let author = people[mark % people.count], committer = people[(mark / 3) % people.count]
            let offsetA = offsets[mark % offsets.count], offsetC = offsets[(mark / 2) % offsets.count]
            var message = "\(subject)\n\n\(body)\nChange-Id: \(mark)"
            if mark % 4 != 0 { message += "\n" }  // every fourth ends without a newline
            let bytes = Array(message.utf8)
            var text = "commit refs/heads/\(branch)\nmark :\(mark)\n"
            text += "author \(author.0) <\(author.1)> \(time) \(offsetA)\n"
            text += "committer \(committer.0) <\(committer.1)> \(time + 60) \(offsetC)\n"
            text += "data \(bytes.count)\n"
            out += Array(text.utf8) + bytes + [0x0A]
            if let from { out += Array("from :\(from)\n".utf8) }
            for merge in merges { out += Array("merge :\(merge)\n".utf8) }
            out += [0x0A]
            return mark
        }
        var main = commit("main", subject: "Initial commit")
        for index in 1..<mainCommits {
            if index % 20 == 0 {
                var side = commit("side\(index)", from: main, subject: "Side work \(index)")
                side = commit("side\(index)", subject: "More side work \(index)")
                main = commit("main", subject: "Main moves on \(index)")
                main = commit("main", merges: [side], subject: "Merge branch 'side\(index)'")
            } else if index == mainCommits / 2 + 3 {
                let heads = (1...3).map { commit("octopus\($0)", from: main, subject: "Octopus leg \($0)") }
                main = commit("main", merges: heads, subject: "Merge branches 'octopus1', 'octopus2' and 'octopus3'")
            } else if index == mainCommits * 3 / 4 + 3 {
                var other = commit("other", subject: "A second root")
                other = commit("other", subject: "Work on the second root")
                main = commit("main", merges: [other], subject: "Merge the second history")
            } else {
                main = commit("main", subject: "Change \(index)")
            }
        }
        return out
    }

    private func appendHandWrittenCommits() async throws {
        let tree = try await git(["rev-parse", "main^{tree}"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var parent = try await git(["rev-parse", "main"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let latin1: [UInt8] =
            Array("tree \(tree)\nparent \(parent)\nauthor Jos".utf8) + [0xE9] + Array(" M".utf8) + [0xFC]
            + Array("ller <jose@example.es> 1700000000 +0100\ncommitter Fran".utf8) + [0xE7]
            + Array("ois <fr@example.fr> 1700000100 -0330\nencoding ISO-8859-1\n\nCaf".utf8) + [0xE9]
            + Array(" cr".utf8) + [0xE8] + Array("me\n\nNa".utf8) + [0xEF] + Array("ve body.\n".utf8)
        parent = try await writeCommit(latin1, name: "latin1")
        let signed = """
            tree \(tree)
            parent \(parent)
            author Signer <signer@example.com> 1700000200 -0700
            committer Signer <signer@example.com> 1700000300 +0900
            mergetag object \(parent)
             type commit
             tag v1.0
             tagger Tagger <tagger@example.com> 1700000000 +0000
             \("")
             Release 1.0
            gpgsig -----BEGIN PGP SIGNATURE-----
             \("")
             iQEzBAABCAAdFiEEexampleexampleexampleexampleAAoJEexample
             committer Not The Committer <no@example.com> 1 +0000
             -----END PGP SIGNATURE-----

            A signed commit

            Its signature spans continuation lines.

            """
        parent = try await writeCommit(Array(signed.utf8), name: "signed")
        let bare =
            "tree \(tree)\nparent \(parent)\nauthor Last <last@example.com> 1700000400 +1400\ncommitter Last <last@example.com> 1700000500 -1200\n\nNo newline at the very end"
        parent = try await writeCommit(Array(bare.utf8), name: "bare")
        try await git(["update-ref", "refs/heads/main", parent])
    }

    private func writeCommit(_ bytes: [UInt8], name: String) async throws -> String {
        let file = directory.path("\(name).commit")
        #expect(FileManager.default.createFile(atPath: file, contents: Data(bytes)))
        return try await git(["hash-object", "-t", "commit", "-w", "--literally", file]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// git's own reading of every commit on main, through `git log`'s placeholders (UTF-8 output).
    func logRecords() async throws -> [GitLogRecord] {
        let format = ["%H", "%T", "%P", "%an", "%ae", "%at", "%ai", "%cn", "%ce", "%ct", "%ci", "%B"].joined(separator: "%x01")
        let output = try await git(["log", "-z", "--format=\(format)", "main"]).stdout
        return output.split(separator: "\0").map { record in
            let fields = record.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
            return GitLogRecord(fields: fields)
        }
    }

    /// The repository's single pack after the repack.
    func packFile() throws -> String {
        let directory = path + "/objects/pack"
        let name = try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".pack") }
        return directory + "/" + (name ?? "none.pack")
    }
}

struct GitLogRecord {
    var sha, tree: String
    var parents: [String]
    var authorName, authorEmail: String
    var authorTime: Int64
    var authorOffset: String
    var committerName, committerEmail: String
    var committerTime: Int64
    var committerOffset: String
    var message: String

    init(fields: [String]) {
        sha = fields[0]
        tree = fields[1]
        parents = fields[2].split(separator: " ").map(String.init)
        authorName = fields[3]
        authorEmail = fields[4]
        authorTime = Int64(fields[5]) ?? -1
        authorOffset = String(fields[6].split(separator: " ").last ?? "")
        committerName = fields[7]
        committerEmail = fields[8]
        committerTime = Int64(fields[9]) ?? -1
        committerOffset = String(fields[10].split(separator: " ").last ?? "")
        message = fields[11]
    }

    /// `+0530` → 330, as `GitIdentityLine` keeps offsets.
    static func minutes(_ offset: String) -> Int {
        let digits = Int(offset.dropFirst()) ?? 0
        return (offset.hasPrefix("-") ? -1 : 1) * (digits / 100 * 60 + digits % 100)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
