import ArgumentParser

extension Commitsctl.Query {
    /// `query`'s options, declared once: the properties in Query.swift read their
    /// names, help and defaults here, and so does the table its everyday command
    /// lines are parsed from (`DirectParser`).
    enum Options {
        typealias Declared<Value: Sendable> = DeclaredOption<Commitsctl.Query, Value>

        static let author = Declared.repeating(
            .long("author"),
            help: ArgumentHelp(
                "Only commits whose author name or email contains this text, ignoring case (repeat: any of them).", valueName: "text")
        ) { $0.author = $1 }
        static let committer = Declared.repeating(
            .long("committer"),
            help: ArgumentHelp(
                "Only commits whose committer name or email contains this text, ignoring case (repeat: any of them).", valueName: "text")
        ) { $0.committer = $1 }
        static let coAuthor = Declared.repeating(
            .long("co-author"),
            help: ArgumentHelp(
                "Only commits crediting a co-author (Co-authored-by:) whose name or email contains this text (repeat: any of them).",
                valueName: "text")
        ) { $0.coAuthor = $1 }
        static let grep = Declared.repeating(
            .long("grep"),
            help: ArgumentHelp("Only commits whose message contains this text, ignoring case (repeat: any of them).", valueName: "text")
        ) { $0.grep = $1 }
        static let allMatch = Declared.flag(
            .long("all-match"), help: "Only commits whose message contains every --grep text, not just one."
        ) { $0.allMatch = $1 }
        static let invertGrep = Declared.flag(.long("invert-grep"), help: "Only commits whose message does not match the --grep texts.") {
            $0.invertGrep = $1
        }
        static let ignoreCase = Declared.flag(
            .short("i"), .long("regexp-ignore-case"),
            help: "Ignore case in --grep, --author and --committer (always the case; accepted for git habits)."
        ) { $0.ignoreCase = $1 }
        static let noMerges = Declared.flag(.long("no-merges"), help: "Leave out merge commits (more than one parent).") {
            $0.noMerges = $1
        }
        static let merges = Declared.flag(.long("merges"), help: "Only merge commits (more than one parent).") { $0.merges = $1 }
        static let since = Declared.optional(
            .long("since"), .long("after"),
            help: ArgumentHelp(
                "Only commits committed at or after this date (2024-05-01, \"2 weeks ago\", yesterday, \"last tuesday\", noon).",
                valueName: "date")
        ) { $0.since = $1 }
        static let until = Declared.optional(
            .long("until"), .long("before"),
            help: ArgumentHelp(
                "Only commits committed at or before this date (same forms as --since; a bare date includes that whole day).",
                valueName: "date")
        ) { $0.until = $1 }
        static let mailmap = Declared.optional(
            .long("mailmap"),
            help: ArgumentHelp(
                "Merge identities with this git .mailmap file (default: the configuration's mailmap), so --author and --co-author match any identity of a person.",
                valueName: "file")
        ) { $0.mailmap = $1 }
        static let follow = Declared.flag(
            .long("follow"),
            help: "After printing, keep running and print each matching commit as it arrives (joins the repository) until interrupted."
        ) { $0.follow = $1 }
        static let branch = Declared.repeating(
            .long("branch"),
            help: ArgumentHelp(
                "Only commits this mirrored branch reaches (repeat: any of them; * matches any run of characters, / included: \"release/*\"). With --repo, that repository's branches.",
                valueName: "name")
        ) { $0.branch = $1 }
        static let limit = Declared.optional(
            .short("n", joined: true), .long("limit"), .long("max-count"),
            help: ArgumentHelp("Show at most this many commits, the newest (also -N, as in git log).", valueName: "n")
        ) { $0.limit = $1 }
        static let reverse = Declared.flag(.long("reverse"), help: "Print the selected commits oldest first.") { $0.reverse = $1 }
        static let includeRewritten = Declared.flag(
            .long("include-rewritten"),
            help: "Also list commits a confirmed force-push left off every mirrored branch (kept in the store, hidden by default)."
        ) { $0.includeRewritten = $1 }
        static let format = Declared.option(
            .long("format"), default: OutputFormat.oneline, help: "How to print the commits (JSON fields: docs/QUERY.md)."
        ) { $0.format = $1 }
        static let fullHistory = Declared.flag(
            .long("full-history"),
            help: "With paths, follow every parent of a merge and list the merges that differ from any parent, as git log --full-history."
        ) { $0.fullHistory = $1 }
        static let firstParent = Declared.flag(
            .long("first-parent"),
            help: "With paths, follow only first parents and judge each commit against its first parent, as git log --first-parent."
        ) { $0.firstParent = $1 }
        static let pullRequest = Declared.optional(
            .long("pr"),
            help: ArgumentHelp(
                "Only the commits this merged pull request brought in: its merge commit and what that merged (as git log M^1..M).",
                valueName: "number")
        ) { $0.pullRequest = $1 }
        static let path = Declared.repeating(
            .long("path"), help: ArgumentHelp("A path that followed --.", visibility: .hidden)
        ) { $0.paths = $1 }
        static let revisionsHelp = ArgumentHelp(
            "Revisions as git log takes them (A..B, A...B, ^A, B~3, B^2: tags, branches, shas), then paths: only commits that changed them, as git log -- PATH… lists them (files, directories, * ? [...] wildcards, :!PATH); after -- only paths.",
            valueName: "revision-or-path")
    }

    /// The table `query`'s everyday command lines are parsed from.
    static let directParser = DirectParser<Self>(
        [
            Options.author.row, Options.committer.row, Options.coAuthor.row, Options.grep.row, Options.allMatch.row,
            Options.invertGrep.row, Options.ignoreCase.row, Options.noMerges.row, Options.merges.row, Options.since.row,
            Options.until.row, Options.mailmap.row, Options.follow.row, Options.branch.row, Options.limit.row, Options.reverse.row,
            Options.includeRewritten.row, Options.format.row, Options.fullHistory.row, Options.firstParent.row,
            Options.pullRequest.row, Options.path.row,
        ],
        groups: [
            .group(RepositoryFilterOptions.directParser) { $0.repository = $1 }, .group(PagerOptions.directParser) { $0.pager = $1 },
            .group(StoreOptions.directParser) { $0.store = $1 },
        ],
        unparsedDefaults: { $0.revisionsOrPaths = [] })
}
