import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            _superCommandName: Commitsctl.name,
            abstract: "Seed the store from saved API responses (gh api --paginate output or NDJSON).",
            discussion: """
                Reads the output of `gh api --paginate repos/OWNER/REPO/commits` (JSON arrays one after \
                another) or NDJSON (one commit object per line) from each FILE, or standard input for -, and \
                stores the commits exactly as a sync stores the same pages. Only commits whose whole history \
                is present (in the input or already mirrored) are attached to the repository, parents first; \
                nothing is marked complete. The next `commitsctl sync` proves completeness and usually needs \
                only two requests. Progress goes to stderr, the summary to stdout. Exit status: 0 imported; \
                1 unreadable or invalid input; 2 bad configuration; 75 another process is syncing the repository.
                """
        )

        @Argument(help: "The repository the commits belong to, as OWNER/NAME.")
        var repository: String

        @Argument(help: "Files of saved responses; - reads standard input.")
        var files: [String]

        @OptionGroup var store: StoreOptions
        /// `--config`, declared by `StoreOptions` so every store-opening command has it.
        var config: ConfigOptions { store.configuration }

        /// Commits per transaction.
        static let batchSize = 1000

        func validate() throws {
            guard RepositoryName(parsing: repository) != nil else {
                throw ValidationError("'\(repository)' is not a repository name; expected \(RepositoryName.expectedForm)")
            }
            if files.isEmpty { throw ValidationError("name at least one FILE of saved responses, or - for standard input") }
            if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
        }

        func run() async throws {
            try reportingErrors {
                let name = RepositoryName(parsing: repository)!
                let settings = try ResolvedSettings(configuration: try config.load(), store: store)

                var commits: [Commit] = []
                for file in files {
                    let source = file == "-" ? "standard input" : file
                    let decoded = try SavedResponses.decode(try Self.read(file), source: source)
                    Terminal.writeError("commitsctl: import: \(source): \(plural(decoded.count, "commit"))\n")
                    commits += decoded
                }
                guard !commits.isEmpty else { throw ImportError.empty(files: files) }

                let lock = try RepositoryLock.acquire(store: settings.store, repository: name)
                defer { lock.release() }
                let mirror = try settings.store.openSyncWriter()
                reportUpgrade(of: mirror)
                let stored = try mirror.ensureRepository(named: name)
                let plan = try mirror.planImport(commits, repositoryID: stored.id)
                var added = 0
                var updated = 0
                var done = 0
                var lastReport = ContinuousClock.now
                while done < plan.closed.count {
                    let batch = Array(plan.closed[done..<min(done + Self.batchSize, plan.closed.count)])
                    let result = try mirror.importBatch(batch, repositoryID: stored.id)
                    added += result.added
                    updated += result.updated
                    done += batch.count
                    if ContinuousClock.now - lastReport >= .seconds(2) || done == plan.closed.count {
                        lastReport = .now
                        Terminal.writeError("commitsctl: import: stored \(done) of \(plural(plan.closed.count, "commit"))\n")
                    }
                }

                var summary = "\(name): imported \(plural(plan.closed.count, "commit")) (\(added) new, \(updated) updated)"
                summary += " from \(plural(files.count, "input"))"
                if plan.open.isEmpty {
                    summary += "; every parent is present. Run `commitsctl sync \(name)` to verify the head and mark the history complete"
                } else {
                    summary +=
                        "; left out \(plural(plan.open.count, "commit")) whose history reaches \(plural(plan.missingParents.count, "parent")) not in the input (the next sync fetches them)"
                }
                print(summary)
            }
        }

        static func read(_ file: String) throws -> [UInt8] {
            if file == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
            guard let data = FileManager.default.contents(atPath: file) else {
                let reason = access(file, R_OK) == 0 ? "not a readable file" : String(cString: strerror(errno))
                throw ImportError.unreadable(file: file, reason: reason)
            }
            return Array(data)
        }
    }

    enum ImportError: Error, CustomStringConvertible {
        case unreadable(file: String, reason: String)
        case empty(files: [String])

        var description: String {
            switch self {
            case .unreadable(let file, let reason):
                return "cannot read \(file): \(reason)"
            case .empty(let files):
                return
                    "no commits in \(files.joined(separator: ", ")); expected `gh api --paginate repos/OWNER/REPO/commits` output or NDJSON commits"
            }
        }
    }
}
