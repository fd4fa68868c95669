import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup",
            _superCommandName: Commitsctl.name,
            abstract: "Copy the store to a new SQLite file while it is in use.",
            discussion: """
                Copies one consistent snapshot of the store while syncs (commitsd, cron) keep writing it. \
                An SQLite store is copied by SQLite's online backup, opened read-only so writers never wait \
                for the copy; a PostgreSQL store is copied as copy-store does, from one REPEATABLE READ \
                snapshot, into the new SQLite file (pg_dump remains the way to back up the database as a \
                database). The copy is checked (PRAGMA quick_check) before it is given its name, and an \
                existing file is never overwritten. The copy is a complete store: point --db at it to query \
                it or to sync into it.
                """
        )

        @Argument(help: "The SQLite file to write; it must not exist yet.")
        var destination: String

        @OptionGroup var store: StoreOptions

        func run() async throws {
            try await reportingErrors {
                let location = try store.resolvedLocation
                let copy = try await DedicatedThreads.store.run { try location.backup(to: destination) }
                print(
                    "backed up \(location) to \(copy.path): \(plural(copy.repositories, "repository", "repositories")), \(plural(copy.commits, "commit")), \(plural(copy.bytes, "byte")); quick_check ok"
                )
            }
        }
    }
}
