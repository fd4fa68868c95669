import Foundation
import MirrorTestSupport

/// A commit object read the way git reads one, written for the tests apart from the simulator's
/// writer: `tree`, the `parent` lines, `author`/`committer` idents (then the few other headers git
/// writes, skipped), a blank line, the message.
struct ParsedCommitObject: Equatable {
    struct Ident: Equatable {
        var name, email: String
        var time: Int64
        /// `+hhmm` or `-hhmm`, as written.
        var offset: String
    }

    var tree: String
    var parents: [String]
    var author: Ident
    var committer: Ident
    var message: String

    init?(_ body: some Collection<UInt8>) {
        let text = String(decoding: body, as: UTF8.self)
        guard let blank = text.range(of: "\n\n") else { return nil }
        message = String(text[blank.upperBound...])
        var tree: String?
        var parents: [String] = []
        var author: Ident?
        var committer: Ident?
        for line in text[..<blank.lowerBound].split(separator: "\n") {
            if line.hasPrefix(" ") { continue }  // a multi-line header's continuation (gpgsig, mergetag)
            let (key, value) = line.firstIndex(of: " ").map { (line[..<$0], line[line.index(after: $0)...]) } ?? (line, "")
            switch key {
            case "tree": tree = String(value)
            case "parent": parents.append(String(value))
            case "author": author = Self.ident(value)
            case "committer": committer = Self.ident(value)
            case "encoding", "gpgsig", "gpgsig-sha256", "mergetag": continue  // headers real git writes (signed commits)
            default: return nil
            }
        }
        guard let tree, let author, let committer else { return nil }
        self.tree = tree
        self.parents = parents
        self.author = author
        self.committer = committer
    }

    private static func ident(_ value: Substring) -> Ident? {
        guard let open = value.firstIndex(of: "<"), let close = value.lastIndex(of: ">") else { return nil }
        let date = value[value.index(after: close)...].split(separator: " ")
        guard date.count == 2, let time = Int64(date[0]) else { return nil }
        var name = value[..<open]
        while name.last == " " { name.removeLast() }
        return Ident(name: String(name), email: String(value[value.index(after: open)..<close]), time: time, offset: String(date[1]))
    }
}

/// Real git in a scratch HOME, never prompting, with no system or user configuration.
struct GitClient {
    let scratch: TemporaryDirectory
    /// Extra configuration through the environment (so a header never shows on argv).
    var configuration: [(String, String)] = []

    init(scratch: TemporaryDirectory) {
        self.scratch = scratch
    }

    var environment: [String: String] {
        var environment = [
            "HOME": scratch.path("."), "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "/bin/false",
            "GIT_CONFIG_COUNT": String(configuration.count),
        ]
        for (index, (key, value)) in configuration.enumerated() {
            environment["GIT_CONFIG_KEY_\(index)"] = key
            environment["GIT_CONFIG_VALUE_\(index)"] = value
        }
        return environment
    }

    func run(_ arguments: [String], in repository: String? = nil) async throws -> ProcessResult {
        try await runProgram("/usr/bin/git", (repository.map { ["-C", $0] } ?? []) + arguments, environment: environment)
    }

    /// Every commit object of a repository, by sha, as `git cat-file --batch` prints them.
    func commitObjects(in repository: String) async throws -> [String: ParsedCommitObject] {
        let list = try await run(["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"], in: repository)
        let shas = list.lines.compactMap { line -> String? in line.hasSuffix(" commit") ? String(line.prefix(40)) : nil }
        let input = scratch.path("batch-input")
        try Data((shas.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: input))
        let batch = try await runProgram(
            "/bin/sh", ["-c", "git -C '\(repository)' cat-file --batch < '\(input)' > '\(input).out'"], environment: environment)
        guard batch.status == 0 else { throw GitTestError(description: batch.stderr) }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: input + ".out")))
        var objects: [String: ParsedCommitObject] = [:]
        var position = 0
        // "<sha> commit <size>\n<body>\n", repeated.
        while position < bytes.count {
            guard let newline = bytes[position...].firstIndex(of: 0x0A) else { break }
            let header = String(decoding: bytes[position..<newline], as: UTF8.self).split(separator: " ")
            guard header.count == 3, let size = Int(header[2]) else { throw GitTestError(description: "bad batch header") }
            let body = bytes[(newline + 1)..<(newline + 1 + size)]
            guard let object = ParsedCommitObject(body) else { throw GitTestError(description: "unparsable commit \(header[0])") }
            objects[String(header[0])] = object
            position = newline + 1 + size + 1
        }
        return objects
    }
}

struct GitTestError: Error, CustomStringConvertible {
    var description: String
}
