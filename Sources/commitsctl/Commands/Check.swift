import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            _superCommandName: Commitsctl.name,
            abstract: "Check the store: integrity, foreign keys, and completeness of each mirrored branch.",
            discussion: """
                Runs PRAGMA integrity_check and PRAGMA foreign_key_check (on a PostgreSQL store: every index \
                valid, every foreign key validated), compares each author's kept commit count with their \
                commits, then for every repository and \
                branch in the sync state: whether the history is marked complete, walks an interrupted sync \
                left to resume, parents of stored commits that are not stored, and whether the head is \
                stored, and whether its branch rows (what `show` and `query --branch` read) are exactly what its head reaches. The store is opened read-only, so check runs beside syncs. Exit status: 0 sound and \
                every branch complete; 1 damaged (integrity or foreign-key errors, a message missing from \
                the search index, an author counted wrong, or a branch marked complete with history missing); 3 sound but some branch not yet complete (sync again).
                """
        )

        @OptionGroup var store: StoreOptions

        /// Sound, but some branch is still being mirrored.
        static let incompleteStatus: Int32 = 3

        func run() async throws {
            try reportingErrors {
                let mirror = try store.resolvedLocation.openCommitReader()
                let check = try mirror.check()
                print("integrity: \(check.integrityOK ? "ok" : check.integrity.joined(separator: "; "))")
                if check.foreignKeyViolations.isEmpty {
                    print("foreign keys: ok")
                } else {
                    print(
                        "foreign keys: \(plural(check.foreignKeyViolations.count, "violation")): \(check.foreignKeyViolations.prefix(10).joined(separator: "; "))"
                    )
                }
                if check.unindexedMessages == 0 && check.messageIndexLag > 0 {
                    print(
                        "message index: ok; \(plural(check.messageIndexLag, "newer commit")) not indexed yet (--grep reads them row by row; the next sync indexes them)"
                    )
                } else if check.unindexedMessages == 0 {
                    print("message index: ok")
                } else {
                    print("message index: \(plural(check.unindexedMessages, "commit message")) missing (--grep would not find them)")
                }
                if check.miscountedAuthors == 0 {
                    print("author counts: ok")
                } else {
                    print(
                        "author counts: \(plural(check.miscountedAuthors, "author")) counted wrong (show and authors would say wrong totals)"
                    )
                }
                if check.staleTagContainment == 0 {
                    print("tag containment: ok")
                } else {
                    print(
                        "tag containment: \(plural(check.staleTagContainment, "commit")) not up to date with the tags (show's Included in; the next sync that reads tags brings it up to date)"
                    )
                }
                print(
                    check.commitsWithoutPaths == 0
                        ? "paths: ok"
                        : "paths: \(plural(check.commitsWithoutPaths, "commit")) without their changed paths yet (query -- PATH counts them as not covered; commitsctl sync --paths reads them)"
                )
                for branch in check.branches { print(Self.describe(branch)) }
                if check.isDamaged {
                    printError(
                        "the store \(mirror.location) is damaged (see above); restore a backup (commitsctl backup) or sync into a new store"
                    )
                    throw ExitCode(ExitStatus.failure)
                }
                if !check.isComplete { throw ExitCode(Self.incompleteStatus) }
            }
        }

        static func describe(_ branch: BranchCompleteness) -> String {
            let name = "\(branch.repository)@\(branch.branch)"
            let head = branch.headSHA.map { "head \($0.prefix(7))" } ?? "no head yet"
            if branch.isComplete {
                return "\(name): complete: \(plural(branch.commits, "commit")), \(head), every parent stored"
            }
            var problems: [String] = []
            if branch.pendingWalks > 0 {
                problems.append("\(plural(branch.pendingWalks, "walk")) pending (an interrupted sync; the next sync resumes it)")
            }
            if branch.missingParents > 0 { problems.append("\(plural(branch.missingParents, "parent")) not stored") }
            if branch.headStored == false { problems.append("head \(branch.headSHA!.prefix(7)) not stored") }
            if let membership = branch.membership, !membership.isExact {
                problems.append(
                    "its branch rows do not match its head (\(plural(membership.rows, "row")); the head reaches \(plural(membership.reached, "commit")): \(membership.missing) missing, \(membership.extra) extra)"
                )
            }
            if !branch.markedComplete && problems.isEmpty { problems.append("not yet synced to the end") }
            let label =
                branch.isInconsistent
                ? "DAMAGED: marked complete, but" : branch.mirrored ? "incomplete:" : "no longer mirrored, kept as it was:"
            return "\(name): \(label) \(problems.joined(separator: ", ")); \(plural(branch.commits, "commit")), \(head)"
        }
    }
}
