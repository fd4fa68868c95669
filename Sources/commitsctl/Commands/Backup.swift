import ArgumentParser
import Foundation
import MirrorCore
import MirrorSQLite

extension Commitsctl {
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup",
            abstract: "Copy the store to a new file while it is in use (SQLite online backup).",
            discussion: """
                Copies one consistent snapshot of the store while syncs (commitsd, cron) keep writing it: \
                the store is opened read-only, so writers never wait for the copy. The copy is checked \
                (PRAGMA quick_check) before it is given its name, and an existing file is never overwritten. \
                The copy is a complete store: point --db at it to query it or to sync into it.
                """
        )

        @Argument(help: "The file to write; it must not exist yet.")
        var destination: String

        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await reportingErrors {
                let mirror = try store.resolvedLocation.openReader()
                let copy = try mirror.backup(to: destination)
                print(
                    "backed up \(mirror.path) to \(copy.path): \(plural(copy.repositories, "repository", "repositories")), \(plural(copy.commits, "commit")), \(plural(copy.bytes, "byte")); quick_check ok"
                )
            }
        }
    }
}
