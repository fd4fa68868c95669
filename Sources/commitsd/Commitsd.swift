import ArgumentParser
import MirrorCore

@main
struct Commitsd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "commitsd",
        abstract: "Keep the configured repositories mirrored (the commits-mirror service).",
        discussion: """
            Runs `serve` unless told otherwise. Exit status: 0 stopped cleanly (SIGTERM/SIGINT) or \
            the configuration is valid (--check-config); 1 start-up failed (e.g. the store cannot be \
            opened); 2 bad configuration.
            """,
        version: MirrorVersion.current,
        subcommands: [Serve.self],
        defaultSubcommand: Serve.self
    )
}
