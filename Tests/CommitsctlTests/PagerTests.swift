import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore
@testable import MirrorSQLite
@testable import commitsctl
import SQLite

/// A pager like git's: only on a terminal, `$PAGER` else less with LESS=FRX,
/// `--no-pager` turns it off, and quitting it early is quiet.
@Suite struct PagerDecisionTests {
    @Test func onlyOnATerminalAndNotWhenTurnedOff() {
        func command(_ environment: [String: String], terminal: Bool = true, disabled: Bool = false) -> String? {
            Pager.command(environment: environment, standardOutputIsTerminal: terminal, disabled: disabled) { _, _ in true }
        }
        #expect(command([:]) == "less")
        #expect(command([:], terminal: false) == nil)
        #expect(command([:], disabled: true) == nil)
        #expect(command(["PAGER": "most -s"]) == "most -s")
        #expect(command(["PAGER": "most"], terminal: false) == nil)
        #expect(command(["PAGER": ""]) == nil)
        #expect(command(["PAGER": "cat"]) == nil)
    }

    /// git's behaviour on a server without less: the output is printed, not lost.
    @Test func aPagerThatIsNotInstalledIsSkipped() throws {
        let directory = try TemporaryDirectory()
        let pager = try directory.write("my-pager", "#!/bin/sh\ncat\n")
        chmod(pager, 0o755)
        func command(_ pager: String?, path: String) -> String? {
            var environment = ["PATH": path]
            environment["PAGER"] = pager
            return Pager.command(environment: environment, standardOutputIsTerminal: true, disabled: false)
        }
        #expect(command(nil, path: directory.path("empty")) == nil, "no less on the PATH")
        #expect(command("my-pager -R", path: directory.url.path) == "my-pager -R")
        #expect(command("my-pager", path: "/nonexistent") == nil)
        #expect(command(pager, path: "/nonexistent") == pager, "a path needs no PATH")
        #expect(command(directory.path("absent"), path: directory.url.path) == nil)
        // What the shell would expand cannot be looked up: it is left to the shell.
        #expect(command("$HOME/bin/pager", path: "/nonexistent") == "$HOME/bin/pager")
    }

    @Test func lessAndLvGetGitsDefaultsUnlessSet() {
        let defaults = Pager.environment(["HOME": "/h"])
        #expect(defaults["LESS"] == "FRX" && defaults["LV"] == "-c" && defaults["HOME"] == "/h")
        let own = Pager.environment(["LESS": "S", "LV": ""])
        #expect(own["LESS"] == "S" && own["LV"] == "")
    }

    @Test func noPagerBeforeTheCommandIsGitsPlace() {
        #expect(GitLogArguments.normalize(["--no-pager", "query", "-5"]) == ["query", "--no-pager", "-n", "5"])
        #expect(GitLogArguments.normalize(["--no-pager", "stats"]) == ["stats", "--no-pager"])
        #expect(GitLogArguments.normalize(["--no-pager", "status", "--json"]) == ["status", "--json"])
        #expect(GitLogArguments.normalize(["query", "--grep", "--no-pager"]) == ["query", "--grep", "--no-pager"])
    }
}

/// The built binary on a pseudo-terminal (util-linux `script`), with a fake
/// pager that records what it was given.
@Suite struct PagerTerminalTests {
    let directory: TemporaryDirectory
    let db: String
    let pager: String

    init() throws {
        (directory, db) = try QueryCLIFixture.fresh("paged.sqlite")
        // Slow to finish on purpose: its file exists when commitsctl returns only if commitsctl waited.
        pager = try directory.write(
            "fake-pager",
            """
            #!/bin/sh
            printf '%s' "LESS=$LESS LV=$LV" > "$PAGED.env"
            cat > "$PAGED.part"; sleep 0.3; mv "$PAGED.part" "$PAGED"

            """)
        chmod(pager, 0o755)
    }

    static var scriptAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/script") }

    /// Runs `commitsctl ARGS` with stdout on a pseudo-terminal; stdout and stderr come back together.
    func onTerminal(_ arguments: [String], pager: String? = nil) async throws -> ProcessResult {
        let quoted = ([Executables.path("commitsctl")] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try await runProgram(
            "/usr/bin/script", ["-qec", "env -u LESS -u LV \(quoted)", "/dev/null"],
            environment: [
                "PAGER": pager ?? self.pager, "PAGED": directory.path("paged"), "TZ": "UTC",
            ])
    }

    var paged: String? { try? String(contentsOfFile: directory.path("paged"), encoding: .utf8) }

    /// The pager starts as a program started from a shell would: no signal
    /// blocked or ignored, whatever thread of commitsctl spawned it.
    @Test(.enabled(if: scriptAvailable))
    func thePagerStartsWithNoSignalBlockedOrIgnored() async throws {
        let recorder = try directory.write(
            "signal-pager",
            """
            #!/bin/sh
            # Builtins only: a shell blocks every signal while it forks, so a child
            # (grep) reading this shell's status could catch it mid-fork.
            while IFS= read -r line; do
                case $line in SigBlk:* | SigIgn:*) printf '%s\n' "$line" ;; esac
            done < /proc/$$/status > "$PAGED.signals"
            cat > /dev/null

            """)
        chmod(recorder, 0o755)
        let result = try await onTerminal(["query", "--db", db], pager: recorder)
        #expect(result.status == 0, "\(result.stdout)")
        let signals = try String(contentsOfFile: directory.path("paged.signals"), encoding: .utf8)
        let masks = signals.split(separator: "\n").compactMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        // Signals 1-31 (bit n-1); glibc keeps 32 and 33 for itself, out of a spawn's reach.
        #expect(masks.count == 2 && masks.allSatisfy { $0 & 0x7fff_ffff == 0 }, "\(signals)")
    }

    @Test(
        .enabled(if: scriptAvailable),
        arguments: [
            ["query"], ["query", "--format", "table"], ["authors"], ["stats"],
            ["show", "bbbb"],
        ])
    func aTerminalGetsThePager(arguments: [String]) async throws {
        let piped = try await commitsctl(arguments + ["--db", db], columns: 100)
        let result = try await onTerminal(arguments + ["--db", db])
        #expect(result.status == 0, "\(result.stdout)")
        let received = try #require(paged, "the pager was not started, or not waited for: \(result.stdout)")
        #expect(!received.isEmpty)
        if !arguments.contains("table") && arguments != ["authors"] && arguments != ["stats"] {
            #expect(received == piped.stdout)
        }
        #expect(try String(contentsOfFile: directory.path("paged.env"), encoding: .utf8) == "LESS=FRX LV=-c")
    }

    @Test(.enabled(if: scriptAvailable))
    func noPagerAndPipesPrintDirectly() async throws {
        let result = try await onTerminal(["query", "--no-pager", "--db", db])
        #expect(result.status == 0)
        #expect(paged == nil)
        #expect(result.stdout.contains("日本語のコミット"))
        _ = try await commitsctl(["query", "--db", db], environment: ["PAGER": pager, "PAGED": directory.path("paged")])
        #expect(paged == nil, "a pipe got the pager")
        _ = try await onTerminal(["--no-pager", "query", "--db", db])
        #expect(paged == nil)
    }

    /// 200 commits with long messages: JSON output of several pipe buffers.
    func bigStore() throws -> String {
        let db = directory.path("big.sqlite")
        guard !FileManager.default.fileExists(atPath: db) else { return db }
        let store = try MirrorStore(path: db)
        let repository = try store.ensureRepository(named: RepositoryName(parsing: "acme/big")!)
        let commits = (1...200).map { index in
            QueryCLIFixture.Commit(
                sha: String(format: "%040x", index), message: "Commit \(index)\n\n" + String(repeating: "body ", count: 400),
                author: QueryCLIFixture.ada, committer: nil, date: String(format: "2024-01-01T00:%02d:%02dZ", index / 60, index % 60),
                authorDate: nil, parents: index == 1 ? [] : [String(format: "%040x", index - 1)], repositories: ["acme/big"])
        }
        try store.db.transaction {
            _ = try store.upsert(commits.map(QueryCLIFixture.payload).map(MirrorCore.Commit.init), repositoryID: repository.id)
        }
        return db
    }

    /// Whether process `pid` has a handler for SIGTERM installed (`SigCgt` in /proc).
    static func catchesTerminate(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
            let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(SIGTERM - 1)) != 0
    }

    @Test(.enabled(if: scriptAvailable))
    func aSignalWaitsForThePagerAsGitDoes() throws {
        let db = try bigStore()
        // A pager that ignores the signal (as less does) and reads slowly.
        let slow = try directory.write(
            "slow",
            """
            #!/bin/sh
            trap '' INT TERM
            touch "$PAGED.started"; sleep 1; cat > /dev/null; touch "$PAGED.done"

            """)
        chmod(slow, 0o755)
        let commitsctl = Executables.path("commitsctl")
        let process = try ChildProcess(
            "/usr/bin/script",
            [
                "-qec",
                """
                '\(commitsctl)' query --format json --db '\(db)' & echo $! > '\(directory.path("pid"))'; wait $!; echo "status=$?"
                test -e '\(directory.path("paged.done"))' && echo pager-finished-first
                """, "/dev/null",
            ],
            environment: Executables.environment(["PAGER": slow, "PAGED": directory.path("paged"), "TZ": "UTC"]), stdout: .pipe)
        // The signal goes once the pager runs and commitsctl catches it (its handlers follow the spawn).
        var pid: Int32?
        let paging = waitUntilBlocking(timeout: .seconds(60)) {
            pid = (try? String(contentsOfFile: directory.path("pid"), encoding: .utf8)).flatMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return FileManager.default.fileExists(atPath: directory.path("paged.started")) && pid.map(Self.catchesTerminate) == true
        }
        try #require(paging, "the pager did not start, or commitsctl never caught SIGTERM")
        kill(try #require(pid), SIGTERM)
        let text = String(decoding: process.output!.readDataToEndOfFile(), as: UTF8.self)
        process.waitBlocking()
        #expect(text.contains("status=143"), "\(text)")
        #expect(text.contains("pager-finished-first"), "\(text)")
    }

    @Test(.enabled(if: scriptAvailable))
    func quittingThePagerEarlyIsQuiet() async throws {
        // Enough output to fill the pipe (64 KiB) several times: writes meet a closed pipe.
        let db = try bigStore()
        let quitter = try directory.write("quitter", "#!/bin/sh\nhead -c 10 > /dev/null\n")
        chmod(quitter, 0o755)
        let result = try await onTerminal(["query", "--format", "json", "--db", db], pager: quitter)
        #expect(result.status == 0, "\(result.stdout)")
        #expect(!result.stdout.contains("error"), "\(result.stdout)")
    }
}
