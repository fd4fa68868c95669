import Foundation
import MirrorModel
import MirrorTestSupport
import Testing

/// Pathspecs read and matched as `git log -- ARG...` and `git ls-files -- ARG...` do at the root.
@Suite struct PathspecTests {
    /// The paths of `paths` that `arguments` match, in order.
    static func matched(_ arguments: [String], _ paths: [String]) throws -> [String] {
        let spec = try Pathspec(arguments)
        return paths.filter { spec.matches(Array($0.utf8)) }
    }

    static let tree = [
        "Sour", "Sources/a/x", "Sources/a/x.swift", "Sources/b/y/x", "Sources/top.swift", "Sourcesx", "abc", "a?c", "a*b", "a\\b", "ab",
    ]

    @Test func itemsMatchEqualPathsAndLeadingDirectories() throws {
        #expect(try Self.matched(["Sources"], Self.tree) == ["Sources/a/x", "Sources/a/x.swift", "Sources/b/y/x", "Sources/top.swift"])
        #expect(try Self.matched(["Sources/a"], Self.tree) == ["Sources/a/x", "Sources/a/x.swift"])
        #expect(try Self.matched(["Sour"], Self.tree) == ["Sour"])
        #expect(try Self.matched(["Sources/a/x"], Self.tree) == ["Sources/a/x"])
        #expect(try Self.matched(["abc", "ab"], Self.tree) == ["abc", "ab"])
    }

    @Test func aTrailingSlashNamesOnlyADirectory() throws {
        #expect(try Self.matched(["Sources/a/"], Self.tree) == ["Sources/a/x", "Sources/a/x.swift"])
        #expect(try Self.matched(["Sources/a/x/"], Self.tree).isEmpty)
        #expect(try Self.matched(["abc/"], Self.tree).isEmpty)
    }

    @Test func starAndQuestionMarkMatchAcrossSlashes() throws {
        #expect(try Self.matched(["*.swift"], Self.tree) == ["Sources/a/x.swift", "Sources/top.swift"])
        #expect(try Self.matched(["Sources/*/x"], Self.tree) == ["Sources/a/x", "Sources/b/y/x"])
        #expect(try Self.matched(["Sources?a?x"], Self.tree) == ["Sources/a/x"])
        #expect(try Self.matched(["a?c"], Self.tree) == ["abc", "a?c"])
        // A glob must match the whole path: it names no leading directory.
        #expect(try Self.matched(["S?urces"], Self.tree).isEmpty)
        #expect(try Self.matched(["Sour*"], Self.tree).count == 6)
    }

    @Test func classesHaveRangesNegationAndNames() throws {
        let paths = ["a", "b", "c", "-", "]", "[", ":", "A", "7", " "]
        #expect(try Self.matched(["[ab]"], paths) == ["a", "b"])
        #expect(try Self.matched(["[a-b]"], paths) == ["a", "b"])
        #expect(try Self.matched(["[!a-b]"], paths) == ["c", "-", "]", "[", ":", "A", "7", " "])
        #expect(try Self.matched(["[^a-b]"], paths) == ["c", "-", "]", "[", ":", "A", "7", " "])
        #expect(try Self.matched(["[a-]"], paths) == ["a", "-"])
        #expect(try Self.matched(["[]a]"], paths) == ["a", "]"])
        // wildmatch tries a range's first byte on its own before it sees the `-`, so a reversed range keeps it.
        #expect(try Self.matched(["[c-a]"], paths) == ["c"])
        #expect(try Self.matched(["[[:upper:][:digit:]]"], paths) == ["A", "7"])
        #expect(try Self.matched(["[[:space:]]"], paths) == [" "])
        #expect(try Self.matched(["[[:]"], paths) == ["[", ":"])
        #expect(try Self.matched(["[\\]]"], paths) == ["]"])
    }

    @Test func backslashQuotesAndIsAWildcardItself() throws {
        #expect(try Self.matched(["a\\*b"], Self.tree) == ["a*b"])
        // `a\b` matches itself literally and, as a glob, `ab`.
        #expect(try Self.matched(["a\\b"], Self.tree) == ["a\\b", "ab"])
    }

    @Test func malformedGlobsMatchOnlyLiterally() throws {
        let paths = ["a[", "a[b", "ab", "a\\", "a[[:foo:]]"]
        #expect(try Self.matched(["a["], paths) == ["a["])
        #expect(try Self.matched(["a[b"], paths) == ["a[b"])
        #expect(try Self.matched(["a\\"], paths) == ["a\\"])
        #expect(try Self.matched(["a[[:foo:]]"], paths) == ["a[[:foo:]]"])
    }

    @Test func literalMagicTurnsWildcardsOff() throws {
        #expect(try Self.matched([":(literal)a*b"], Self.tree) == ["a*b"])
        #expect(try Self.matched([":(literal)Sour*"], Self.tree).isEmpty)
    }

    @Test func exclusionsRemoveAndAloneKeepTheRest() throws {
        #expect(try Self.matched(["Sources", ":!Sources/a"], Self.tree) == ["Sources/b/y/x", "Sources/top.swift"])
        #expect(try Self.matched([":(exclude)Sources", ":^a*"], Self.tree) == ["Sour", "Sourcesx"])
        #expect(try Self.matched([":!:*.swift"], Self.tree).count == Self.tree.count - 2)
        #expect(try Self.matched([":!"], Self.tree).isEmpty)
        #expect(try Self.matched([], Self.tree) == Self.tree)
    }

    @Test func pathsAreNormalizedUnlessFromTop() throws {
        #expect(try Self.matched(["./Sources/../abc"], Self.tree) == ["abc"])
        #expect(try Self.matched(["Sources//a/./"], Self.tree) == ["Sources/a/x", "Sources/a/x.swift"])
        #expect(try Self.matched(["."], Self.tree) == Self.tree)
        #expect(try Self.matched(["Sources/.."], Self.tree) == Self.tree)
        #expect(try Self.matched([":/Sources/a", ":(top)ab"], Self.tree) == ["Sources/a/x", "Sources/a/x.swift", "ab"])
        #expect(try Self.matched([":/./abc"], Self.tree).isEmpty)
        #expect(try Self.matched([":/"], Self.tree) == Self.tree)
        #expect(try Pathspec(["a/b/.."]).items[0].pattern == Array("a/".utf8))
    }

    @Test func refusedArgumentsSayWhichAndWhy() throws {
        let refusals: [(String, PathspecError.Kind)] = [
            ("", .empty), ("..", .outsideRepository), ("a/../..", .outsideRepository), ("/etc", .absolutePath),
            (":(exclude", .unclosedMagic), (":(foo)x", .unknownMagic("foo")), (":#x", .unknownMagic("#")),
            (":(icase)x", .unsupportedMagic("icase")), (":(glob)*", .unsupportedMagic("glob")),
            (":(attr:a)x", .unsupportedMagic("attr")), (":(prefix:1)x", .unsupportedMagic("prefix")),
        ]
        for (argument, kind) in refusals {
            #expect(throws: PathspecError(argument: argument, kind: kind)) { try Pathspec(["ok", argument]) }
        }
        let error = PathspecError(argument: "a\nb", kind: .unknownMagic("#"))
        #expect(!error.description.contains("\n") && error.description.contains("\"a\\nb\""))
        // Characters git does not read as mnemonics start the pattern.
        #expect(try Pathspec([":*x", ":$x"]).items.map(\.pattern) == [Array("*x".utf8), Array("$x".utf8)])
    }

    @Test func literalPrefixesAndExclusions() throws {
        let spec = try Pathspec(["Sources/*/x.swift", "docs/", "a\\b", ":(literal)c*", ":!Sources/b"])
        #expect(spec.literalPrefixes == ["Sources/", "docs/", "a", "c*"].map { Array($0.utf8) })
        #expect(spec.hasExclusions)
        #expect(try Pathspec([":!x"]).literalPrefixes == [[]])
        #expect(try !Pathspec(["x"]).hasExclusions)
        #expect(Pathspec(items: [.init(pattern: Array("x".utf8), isExclusion: true)]) == (try Pathspec([":!x"])))
    }

    @Test(.timeLimit(.minutes(1))) func manyStarsStayPolynomial() throws {
        let path = [UInt8](repeating: UInt8(ascii: "a"), count: 20_000)
        #expect(try !Pathspec([String(repeating: "*a", count: 30) + "*b"]).matches(path))
        #expect(try Pathspec([String(repeating: "*a", count: 30) + "*"]).matches(path))
        #expect(try !Pathspec([String(repeating: "?", count: 20_001)]).matches(path))
    }
}

/// The same pathspecs given to real git over a repository of awkward names.
extension PathspecTests {
    /// Bytes, so that a name that is not UTF-8 can be among them.
    static let files: [[UInt8]] =
        [
            "Sour", "Sourcesx", "Sources/a/x", "Sources/a/x.swift", "Sources/b/x", "Sources/b/y/x", "Sources/top.swift",
            "abc", "a?c", "aXc", "a*b", "a\\b", "ab", "b", "c", "[ab]", "bracket", "br[ack]et/k", "dir with space/f 1",
            ":colon", "!bang", "-dash", ".hidden/x", "tab\tname", "new\nline", "caf\u{e9}", "deep/a/b/c/d.swift", "README.md",
        ].map { Array($0.utf8) } + [Array("bytes/lat".utf8) + [0xE9, 0x6E], Array("bytes/".utf8) + [0xFF, 0xFE]]

    static let gitSpecs: [[String]] = [
        ["Sources"], ["Sources/"], ["Sour"], ["Sources/a/x"], ["Sources/a/x/"], ["abc/"], ["dir with space"], ["dir with space/f 1"],
        ["*.swift"], ["Sources/*/x"], ["Sources/*.swift"], ["a?c"], ["[ab]*"], ["[!a]*"], ["[^a]*"], ["Sour*"], ["S?urces"],
        ["*"], ["."], ["*/x"], ["**/x"], ["deep/**"], ["a\\b"], ["a\\*b"], ["a*b"], ["[ab]"], ["br[ack]et"], ["br\\[ack]et/k"],
        ["[a-c]"], ["[c-a]*"], ["[]ab]*"], ["[a-]*"], ["*[[:space:]]*"], ["[[:upper:]]*"], ["*[[:punct:]]"], ["[[:]*"], ["a[b"],
        ["caf?"], ["caf??"], ["bytes/lat?n"], ["bytes/lat??n"], ["bytes/*"], ["new?line"], ["tab\tname"],
        [":colon"], ["./:colon"], ["!bang"], ["-dash"], ["nonexistent"], [":*x"],
        [":(exclude)Sources"], [":!*.swift"], [":^Sources", "Sources/a"], ["Sources", ":!Sources/b"], [":!Sources/b/", "Sources"],
        [":!Sources", ":!*.swift"], [":!"], [":(exclude)."], [":(exclude,literal)a*b", "a*"], ["abc", "b", "c"],
        [":(literal)a*b"], [":(literal)a?c"], [":/Sources"], [":(top)abc"], [":/./abc"], [":/"], [":"], ["./Sources/../abc"],
        ["Sources//a"], ["Sources/b/y/.."], [":!:Sources", ":/:abc"],
    ]

    /// Arguments git refuses too.
    static let gitRefusals: [[String]] = [[""], [".."], ["Sources/../.."], [":(foo)x"], [":#x"], [":(exclude"]]

    @Test func agreesWithGitLsFilesAndLog() async throws {
        let directory = try TemporaryDirectory()
        try await onThread {
            try Self.makeRepository(at: directory.url)
            let all = try Self.paths(Self.git(directory.url, ["ls-files", "-z"]))
            #expect(all == Set(Self.files))
            for spec in Self.gitSpecs {
                let ours = try Pathspec(spec)
                let expected = all.filter(ours.matches)
                let listed = try Self.paths(Self.git(directory.url, ["ls-files", "-z", "--"] + spec))
                let logged = try Self.paths(Self.git(directory.url, ["log", "-z", "--format=", "--name-only", "--"] + spec))
                #expect(listed == expected, "git ls-files -- \(spec): \(Self.shown(listed)); ours: \(Self.shown(expected))")
                #expect(logged == expected, "git log -- \(spec): \(Self.shown(logged)); ours: \(Self.shown(expected))")
            }
            for spec in Self.gitRefusals {
                #expect(throws: PathspecError.self) { try Pathspec(spec) }
                #expect(throws: (any Error).self, "git accepts \(spec)") { try Self.git(directory.url, ["ls-files", "--"] + spec) }
            }
        }
    }

    private static func makeRepository(at url: URL) throws {
        _ = try git(url, ["init", "-q"])
        for file in files {
            let path = Array(url.path.utf8) + [UInt8(ascii: "/")] + file
            if let slash = path.lastIndex(of: UInt8(ascii: "/")) {
                let parent = String(decoding: path[..<slash], as: UTF8.self)
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            }
            // open(2) takes the name as bytes, which a String cannot carry when it is not UTF-8.
            let descriptor = (path + [0]).withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY | O_TRUNC, 0o644) }
            }
            #expect(descriptor >= 0)
            close(descriptor)
        }
        _ = try git(url, ["add", "-A"])
        _ = try git(url, ["commit", "-q", "-m", "awkward names"])
    }

    /// Runs git in `directory` with no user or system configuration; throws unless it exits 0.
    @discardableResult
    private static func git(_ directory: URL, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", directory.path] + arguments
        process.environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory.path, "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "A",
            "GIT_COMMITTER_EMAIL": "a@example.com",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw GitFailed(arguments: arguments, status: process.terminationStatus) }
        return data
    }

    private struct GitFailed: Error {
        var arguments: [String]
        var status: Int32
    }

    private static func paths(_ output: Data) -> Set<[UInt8]> {
        Set(output.split(separator: 0, omittingEmptySubsequences: true).map { Array($0) })
    }

    private static func shown(_ paths: Set<[UInt8]>) -> String {
        paths.map { String(decoding: $0, as: UTF8.self).debugDescription }.sorted().joined(separator: " ")
    }
}
