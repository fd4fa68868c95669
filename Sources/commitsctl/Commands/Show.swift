import ArgumentParser
import MirrorCore
import Foundation

extension Commitsctl {
    /// Synchronous, like `query`: it reads on the main thread.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            _superCommandName: Commitsctl.name,
            abstract: "Show one commit in full: message, people, dates, parents, URL and repositories.",
            discussion: "An abbreviated sha that several commits share is reported with the candidates, never guessed."
        )

        @Argument(Options.sha) var sha: String
        @Option(Options.format) var format: ShowFormat
        @Option(Options.mailmap) var mailmap: String?
        @Flag(Options.nameStatus) var nameStatus: Bool
        @Flag(Options.nameOnly) var nameOnly: Bool

        @OptionGroup var pager: PagerOptions

        /// `--config`, declared by `StoreOptions` so every store-opening command has it.
        var config: ConfigOptions { store.configuration }

        @OptionGroup var store: StoreOptions

        /// query's formats, plus the default `text`, the git show-like view.
        /// `none` (git's empty `--format=`) prints only the list of changed paths.
        enum ShowFormat: String, CaseIterable, ExpressibleByArgument { case text, table, oneline, json, ndjson, csv, none }

        /// The list of changed paths asked for, if any.
        var changeList: ChangeList? { nameStatus ? .nameStatus : nameOnly ? .nameOnly : nil }

        func validate() throws {
            guard CommitResolution.isCommitPrefix(sha) else {
                throw ValidationError("'\(sha)' is not a commit sha; give 4 to 40 hex digits")
            }
            if format == .none && changeList == nil {
                throw ValidationError("--format none prints only the changed paths; add --name-status or --name-only")
            }
            if nameStatus && nameOnly { throw ValidationError("--name-status and --name-only exclude each other; give one") }
            if changeList != nil, ![.text, .none, .oneline].contains(format) {
                throw ValidationError(
                    "--name-status and --name-only go with --format text, oneline or none; json, ndjson and csv carry the files"
                )
            }
        }

        func run() throws {
            try reportingErrors {
                let configuration = try config.load()
                let settings = try ResolvedSettings(configuration: configuration, store: store)
                let mirror = try settings.store.openCommitReader()
                let mailmap = try MailmapSource(flag: mailmap, configuration: configuration).load()
                switch try mirror.resolveCommit(sha, mailmap: mailmap) {
                case .notFound:
                    throw ShowError.notFound(sha, path: mirror.location.description)
                case .ambiguous(let candidates, let total):
                    throw ShowError.ambiguous(sha, candidates: candidates, total: total)
                case .found(var detail):
                    detail.includedIn = try mirror.earliestTags(containing: detail.commit.sha)
                    detail.pullRequests = try mirror.pullRequests(involving: detail.commit.sha)
                    var changeLines: [String] = []
                    if let changeList {
                        guard let changes = detail.changes else { throw ChangesNotStored(sha: detail.commit.sha) }
                        changeLines = Self.changeLines(changes, parents: detail.commit.parents.count, list: changeList)
                    }
                    pager.start()
                    let output = OutputWriter()
                    defer { output.flush() }
                    switch format {
                    case .none: break
                    case .text:
                        output.write(Self.text(detail))
                        if !changeLines.isEmpty { output.line("") }
                    case .table:
                        for line in CommitRendering.table([detail.commit], width: Terminal.outputWidth) { output.line(line) }
                    case .oneline: output.line(CommitRendering.oneline(detail.commit))
                    case .json, .ndjson, .csv:
                        RecordWriter.write(
                            [detail], fields: Self.fields, as: RecordFormat(format)!, to: output, layout: .singleObject)
                    }
                    for line in changeLines { output.line(line) }
                }
            }
        }

        /// `git show --format=fuller`-like, plus URL, repositories and the author's tally.
        static func text(_ detail: CommitDetail) -> String {
            let commit = detail.commit
            func person(_ p: CommitPerson) -> String { TextCleaning.singleLine("\(p.name) <\(p.email)>") }
            var text = "commit \(commit.sha)\n"
            if commit.isMerge {
                text += "Merge:      \(commit.parents.joined(separator: " "))\n"
            } else if let parent = commit.parents.first {
                text += "Parent:     \(parent)\n"
            }
            text += "Author:     \(person(commit.author))\n"
            text += "AuthorDate: \(commit.author.date)\n"
            text += "Commit:     \(person(commit.committer))\n"
            text += "CommitDate: \(commit.committer.date)\n"
            for coAuthor in detail.coAuthors {
                text += "Co-author:  \(TextCleaning.singleLine("\(coAuthor.name) <\(coAuthor.email)>"))\n"
            }
            if let url = commit.url { text += "URL:        \(TextCleaning.singleLine(url))\n" }
            if !commit.repositories.isEmpty { text += "Repository: \(commit.repositories.joined(separator: ", "))\n" }
            for held in detail.branches {
                text += "Branches:   \(held.repository): \(TextCleaning.singleLine(held.names.joined(separator: ", ")))\n"
            }
            for included in detail.includedIn {
                text += "Included in: \(included.repository): \(TextCleaning.singleLine(included.tag))\n"
            }
            for pull in detail.pullRequests {
                text += "Pull request: \(Self.pullRequestLine(pull, sha: commit.sha))\n"
            }
            text +=
                "By author:  commit \(detail.authorPosition) of \(detail.authorCommitCount) by this person (\(TextCleaning.singleLine(commit.author.name)))\n"
            text += "\n"
            for line in TextCleaning.multiline(commit.message).split(separator: "\n", omittingEmptySubsequences: false) {
                text += line.isEmpty ? "\n" : "    \(line)\n"
            }
            return text
        }

        /// The query fields (docs/QUERY.md), then the author's tally.
        static let fields =
            CommitRendering.fields.reading { (detail: CommitDetail) in detail.commit }
            + RecordFields<CommitDetail>([
                ("author_commit_position", { .int($0.authorPosition) }),
                ("author_commit_count", { .int($0.authorCommitCount) }),
                ("co_authors", { .array($0.coAuthors.map { .object([("name", .string($0.name)), ("email", .string($0.email))]) }) }),
                ("branches", { .object($0.branches.map { ($0.repository, .array($0.names.map { .string($0) })) }) }),
                ("files", { filesField($0.changes) }),
                ("included_in", { .object($0.includedIn.map { ($0.repository, .string($0.tag)) }) }),
                ("pull_requests", { .array($0.pullRequests.map(pullRequestField)) }),
            ])
    }
}

enum ShowError: Error, CustomStringConvertible {
    case notFound(String, path: String)
    case ambiguous(String, candidates: [CommitSummary], total: Int)

    var description: String {
        switch self {
        case .notFound(let sha, let path):
            return "no commit \(sha) in the store \(path); `commitsctl query` lists what is mirrored"
        case .ambiguous(let sha, let candidates, let total):
            var text = "the short sha \(sha) is ambiguous: \(plural(total, "commit")) start with it; give more digits. Candidates:"
            for commit in candidates {
                text +=
                    "\n  "
                    + CommitRendering.oneline(commit).replacingOccurrences(
                        of: String(commit.sha.prefix(7)), with: String(commit.sha.prefix(12)), options: .anchored)
            }
            if total > candidates.count { text += "\n  … and \(total - candidates.count) more" }
            return text
        }
    }
}
