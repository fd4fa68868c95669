import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    /// Synchronous, like `query`: it reads on the main thread.
    struct Tags: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tags",
            abstract: "List the mirrored tags, like git tag: by name, or only those containing a commit.",
            discussion: """
                Lists each mirrored repository's tags (or --repo's) with the date git sorts them by (an annotated \
                tag's tagger date, a lightweight tag's commit date) and the commit each peels to. --contains SHA \
                lists only the tags that reach the commit, as git tag --contains does; --all also lists where moved \
                and deleted tags pointed before.
                """
        )

        @OptionGroup var repository: RepositoryFilterOptions

        @Option(help: ArgumentHelp("Only tags that contain this commit (a full or abbreviated sha).", valueName: "sha"))
        var contains: String?
        @Option(help: ArgumentHelp("Only tags whose name matches this glob, as git tag -l matches it.", valueName: "glob"))
        var pattern: String?
        @Option(help: "The order: name (git's default) or date (git's --sort=creatordate).") var sort: TagOrder = .name
        @Flag(help: "Also where moved and deleted tags pointed before.") var all = false
        @Option(help: "How to print the tags (json: an array of objects with snake_case keys).")
        var format: ReportFormat = .table

        @OptionGroup var pager: PagerOptions

        /// `--config`, declared by `StoreOptions` so every store-opening command has it.
        var config: ConfigOptions { store.configuration }

        @OptionGroup var store: StoreOptions

        enum TagOrder: String, CaseIterable, ExpressibleByArgument { case name, date }

        func validate() throws {
            if let contains, !CommitResolution.isCommitPrefix(contains) {
                throw ValidationError("--contains: '\(contains)' is not a commit sha; give 4 to 40 hex digits")
            }
            if all && contains != nil { throw ValidationError("--all lists past places of tags, which --contains does not; give one") }
        }

        func run() throws {
            try reportingErrors {
                let configuration = try config.load()
                let settings = try ResolvedSettings(configuration: configuration, store: store)
                let mirror = try settings.store.openCommitReader()
                _ = try repository.resolve(in: mirror)
                var tags = try listed(in: mirror)
                if let pattern { tags = tags.filter { fnmatch(pattern, $0.tag.name, 0) == 0 } }
                if sort == .date { tags = TagContainment.sortedByCreatorDate(tags) }
                pager.start()
                let output = OutputWriter()
                defer { output.flush() }
                let columns: [TextTable.Column] = [
                    .init(title: "TAG", flexible: true, minimumWidth: 8), .init(title: "DATE"), .init(title: "COMMIT"),
                    .init(title: "KIND"), .init(title: "REPOSITORY", flexible: true, minimumWidth: 10),
                ]
                format.write(
                    tags, columns: columns, cells: Self.cells, oneline: { TextCleaning.singleLine($0.tag.name) },
                    fields: Self.fields, to: output)
            }
        }

        /// The tags asked for, by repository and name.
        private func listed(in mirror: any MirrorReading) throws -> [StoredTag] {
            let repositories =
                try mirror.repositories(selectedBy: repository.name)
            guard let contains else {
                return try repositories.flatMap { try mirror.tags(repositoryID: $0.id, includingEnded: all) }
            }
            var found: [StoredTag] = []
            var known = false
            for repository in repositories {
                let commits = try mirror.revisionTargets(contains, repositoryID: repository.id).commits
                if commits.count > 1 {
                    throw RevisionError.ambiguous(contains, candidates: commits.map { String($0.sha.prefix(12)) })
                }
                guard let commit = commits.first else { continue }
                known = true
                let tags = try TagContainment.tags(containing: commit.id, repositoryID: repository.id, in: mirror)
                found += tags.sorted { $0.tag.name.utf8.lexicographicallyPrecedes($1.tag.name.utf8) }
                try warnOfUnmirroredTags(of: repository, in: mirror)
            }
            guard known else { throw RevisionError.unknown(contains) }
            return found
        }

        /// Tags whose commit the mirror does not hold may contain the commit too; git would know, so say so.
        private func warnOfUnmirroredTags(of repository: StoredRepository, in mirror: any MirrorReading) throws {
            let unmirrored = try mirror.tags(repositoryID: repository.id, includingEnded: false).filter {
                $0.tag.commitSHA != nil && $0.commitID == nil
            }
            guard !unmirrored.isEmpty else { return }
            let names = unmirrored.prefix(3).map { TextCleaning.singleLine($0.tag.name) }.joined(separator: ", ")
            printWarning(
                "\(repository.name): \(plural(unmirrored.count, "tag")) (\(names)\(unmirrored.count > 3 ? ", …" : "")) "
                    + "name commits no mirrored branch reaches, so whether they contain \(contains ?? "it") is not known")
        }

        static func cells(_ tag: StoredTag) -> [String] {
            let kind = tag.tag.isAnnotated ? "annotated" : "lightweight"
            let state = tag.endedAt.map { " (until \($0.prefix(10)))" } ?? ""
            return [
                TextCleaning.singleLine(tag.tag.name) + state, String((tag.creatorDate ?? "").prefix(10)),
                String((tag.tag.commitSHA ?? "-").prefix(12)), kind, tag.repository.description,
            ]
        }

        static let fields = RecordFields<StoredTag>([
            ("repository", { .string($0.repository.description) }),
            ("name", { .string($0.tag.name) }),
            ("commit", { $0.tag.commitSHA.map { .string($0) } ?? .null }),
            ("commit_mirrored", { .bool($0.commitID != nil) }),
            ("object", { .string($0.tag.objectSHA) }),
            ("annotated", { .bool($0.tag.isAnnotated) }),
            ("date", { $0.creatorDate.map { .string($0) } ?? .null }),
            ("tagger_name", { $0.tag.annotation?.taggerName.map { .string($0) } ?? .null }),
            ("tagger_email", { $0.tag.annotation?.taggerEmail.map { .string($0) } ?? .null }),
            ("message", { $0.tag.annotation.map { .string($0.message) } ?? .null }),
            ("first_seen_at", { .string($0.firstSeenAt) }),
            ("ended_at", { $0.endedAt.map { .string($0) } ?? .null }),
        ])
    }
}
