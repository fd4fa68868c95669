import ArgumentParser
import Foundation
import MirrorCore

/// `--no-pager`, shared by the commands whose output can be long (query, show,
/// authors, stats).
struct PagerOptions: ParsableArguments {
    @Flag(Options.noPager) var noPager: Bool

    /// Starts the pager when the decision says so; call before the first output.
    func start() {
        // Decided before the environment is copied into a dictionary: piped output never pages.
        guard Terminal.standardOutputIsTerminal, !noPager else { return }
        let environment = ProcessInfo.processInfo.environment
        guard
            let command = Pager.command(
                environment: environment, standardOutputIsTerminal: Terminal.standardOutputIsTerminal,
                disabled: noPager)
        else { return }
        Pager.start(command, environment: Pager.environment(environment))
    }
}

/// The pager's process id for the signal handlers, which can read only a
/// plain global (no lazy initialisation, no locks).
nonisolated(unsafe) private var pagerProcess: pid_t = 0

/// A pager like git's: on a terminal, output goes through `$PAGER` (default
/// `less`, with `LESS=FRX` and `LV=-c` unless set, so short output stays on
/// screen and quits at once). The process waits for the pager when it exits.
enum Pager {
    /// The shell command to page through, or nil: never when output is not a
    /// terminal, never with `--no-pager`, not when `$PAGER` is empty or `cat`,
    /// and not when its program is plainly not installed (a minimal server has
    /// no less): then the output goes straight to the terminal, not to a shell
    /// that only says "not found".
    static func command(
        environment: [String: String], standardOutputIsTerminal: Bool, disabled: Bool,
        isInstalled: (String, [String: String]) -> Bool = Pager.isInstalled
    ) -> String? {
        guard standardOutputIsTerminal, !disabled else { return nil }
        let pager = (environment["PAGER"] ?? "less").trimmingCharacters(in: .whitespaces)
        guard !pager.isEmpty, pager != "cat" else { return nil }
        let program = String(pager.prefix { !$0.isWhitespace })
        // Only a plain word can be looked up; anything the shell would expand is left to it.
        let plain = program.unicodeScalars.allSatisfy { !"|&;<>()$`\\\"'*?[#~=%{}".unicodeScalars.contains($0) }
        return plain && !isInstalled(program, environment) ? nil : pager
    }

    /// Whether `program` is an executable path, or names one on `$PATH` (execvp's
    /// default path when unset).
    static func isInstalled(_ program: String, environment: [String: String]) -> Bool {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }

    /// The pager's environment: git's defaults for less and lv, the user's values first.
    static func environment(_ environment: [String: String]) -> [String: String] {
        var result = environment
        if result["LESS"] == nil { result["LESS"] = "FRX" }
        if result["LV"] == nil { result["LV"] = "-c" }
        return result
    }

    /// The pager's process while it runs; set once, on the main thread, before any output.
    nonisolated(unsafe) private static var process: pid_t?
    /// The terminal's width, read before standard output became the pager's pipe.
    nonisolated(unsafe) private(set) static var terminalColumns: Int?

    static var isActive: Bool { process != nil }

    /// Spawns `/bin/sh -c command` reading a pipe that becomes our standard output.
    static func start(_ command: String, environment: [String: String]) {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { terminalColumns = Int(size.ws_col) }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        let arguments = ["/bin/sh", "-c", command]
        let variables = environment.map { "\($0.key)=\($0.value)" }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = variables.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let spawned = spawnWithCleanSignals(&pid, "/bin/sh", &actions, argv, envp)
        close(fds[0])
        guard spawned == 0 else {
            close(fds[1])
            return
        }
        // A pager the user quits early closes the pipe: writes then fail with
        // EPIPE (OutputWriter ends quietly) instead of killing us mid-write.
        signal(SIGPIPE, SIG_IGN)
        dup2(fds[1], STDOUT_FILENO)
        close(fds[1])
        process = pid
        pagerProcess = pid
        atexit { Pager.finish() }
        // Ctrl-C reaches the pager too, and less stays: like git, leave it the
        // terminal until the user quits it, then die of the signal.
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            Foundation.signal(signal) { number in
                close(STDOUT_FILENO)
                var status: Int32 = 0
                while waitpid(pagerProcess, &status, 0) < 0 && errno == EINTR {}
                Foundation.signal(number, SIG_DFL)
                raise(number)
            }
        }
    }

    /// Closes our end so the pager sees the end of the output, then waits for
    /// the user to leave it (the shell prompt must not return under it).
    static func finish() {
        guard let pid = process else { return }
        process = nil
        fflush(nil)  // print() output still buffered in C stdio
        close(STDOUT_FILENO)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// The reader is gone (the user quit the pager, or `| head` ended): stop
    /// quietly, as git does, without an error message.
    static func outputClosed() -> Never {
        let paged = isActive
        finish()
        exit(paged ? 0 : 128 + SIGPIPE)
    }
}
