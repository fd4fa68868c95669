import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    struct CopyStore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "copy-store",
            _superCommandName: Commitsctl.name,
            abstract: "Copy a whole mirror from one store to a new one (SQLite or PostgreSQL, either way).",
            discussion: """
                Copies everything the source holds — history, names, co-authors, sync state, walks in \
                progress, ETags, owner listings, requests spent — from one consistent snapshot, so syncs \
                may keep writing the source meanwhile. The destination must be new or empty; it is filled in \
                one transaction (a failure leaves it empty). A store is an SQLite file path or a \
                postgresql:// URI (its password in ~/.pgpass or PGPASSFILE, never in the URI). Afterwards \
                a sync of the copy costs what a sync of the source would: one conditional request per branch.
                """
        )

        @Argument(help: "The store to copy: an SQLite file or a postgresql:// URI.")
        var source: String

        @Argument(help: "The new store: an SQLite file (created) or an empty PostgreSQL database.")
        var destination: String

        func run() async throws {
            try await reportingErrors {
                let from = try StoreLocation(source)
                let to = try StoreLocation(destination)
                // A missing source is an error, never an empty copy.
                guard try from.exists() else { throw StoreError.missing(path: from.description) }
                let report = try await DedicatedThreads.store.run { try StoreTransfer.copy(from: from, to: to) }
                print(
                    "copied \(from) to \(to): \(plural(report.repositories, "repository", "repositories")), \(plural(report.commits, "commit")), \(plural(report.rows, "row")) in all"
                )
            }
        }
    }
}
