// mirror-bench: builds large synthetic stores for Benchmarks/query-latency.sh.
//
//   mirror-bench generate --db PATH [--commits N] [--authors N] [--seed N] [--page-size N]
//   mirror-bench time --db PATH --author NAME[,NAME…] --sha SHA[,SHA…] [--runs N]
//   mirror-bench decode --pages DIR [--runs N]
//   mirror-bench fast-import (--commits N [--authors N] [--seed N] | --dataset PATH)
//
// Commits come from GitHubSim's SyntheticRepository (a pure function of the
// seed, so the store is the same on every run) and are written through the
// store's public page path, the one the sync engine uses: newest first, 1,000
// commits per transaction, with the message index maintained by its triggers.
// Prints facts the benchmark needs (a busy author, a mid-size author, a sha).
// `time` measures the same queries inside one process (open the store, run,
// close), to tell query work apart from process start-up.
// `decode` is the decoder ceiling for Benchmarks/run: it reads saved list pages
// (uncompressed response bodies) into memory, then times PayloadDecoder alone
// decoding all of them, in one process. `fast-import` writes a `git fast-import`
// stream of the same synthetic history github-sim serves (its defaults: 200
// authors, a merge every 8 commits), or of a dataset, so `git log` can be
// compared with `commitsctl query` on the same commits.

import Foundation
import GitHubSim
import MirrorCore
import MirrorPostgreSQL
import MirrorSQLite

@main
struct MirrorBench {
    static func main() throws {
        // The store drivers it links, as commitsctl registers them.
        StoreDrivers.register(sqlite: SQLiteDriver())
        StoreDrivers.register(postgreSQL: PostgreSQLDriver())
        PackCommitIndexes.registerSQLite()
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first, ["generate", "time", "decode", "fast-import"].contains(command) else { usage() }
        arguments.removeFirst()
        var options: [String: String] = [:]
        while arguments.count >= 2, arguments[0].hasPrefix("--") {
            options[String(arguments[0].dropFirst(2))] = arguments[1]
            arguments.removeFirst(2)
        }
        guard arguments.isEmpty else { usage() }
        if command == "decode" {
            guard let pages = options["pages"] else { usage() }
            try decode(directory: pages, runs: Int(options["runs"] ?? "") ?? 5)
            return
        }
        if command == "fast-import" {
            if let dataset = options["dataset"] {
                try fastImport(commits: Dataset.load(path: dataset).reversed())
            } else {
                guard let commits = options["commits"].flatMap(Int.init) else { usage() }
                let repository = SyntheticRepository(
                    spec: SyntheticSpec(
                        commits: commits, authors: Int(options["authors"] ?? "") ?? 200,
                        seed: UInt64(options["seed"] ?? "") ?? 1))
                try fastImport(commits: (0..<repository.count).lazy.map(repository.commit(at:)))
            }
            return
        }
        guard let path = options["db"] else { usage() }
        if command == "time" {
            guard let authors = options["author"], let shas = options["sha"] else { usage() }
            try time(path: path, authors: authors, shas: shas, runs: Int(options["runs"] ?? "") ?? 30)
            return
        }
        let spec = SyntheticSpec(
            commits: Int(options["commits"] ?? "") ?? 1_000_000,
            authors: Int(options["authors"] ?? "") ?? 2_000,
            mergeEvery: 8,
            seed: UInt64(options["seed"] ?? "") ?? 1)
        try generate(spec: spec, path: path, pageSize: Int(options["page-size"] ?? "") ?? 1_000)
    }

    static func usage() -> Never {
        FileHandle.standardError.write(
            Data(
                """
                usage: mirror-bench generate --db PATH [--commits N] [--authors N] [--seed N] [--page-size N]
                       mirror-bench time --db PATH --author NAME[,NAME…] --sha SHA[,SHA…] [--runs N]
                       mirror-bench decode --pages DIR [--runs N]
                       mirror-bench fast-import (--commits N [--authors N] [--seed N] | --dataset PATH)

                """.utf8))
        exit(64)
    }

    /// `pageSize` commits per transaction: 1,000 by default; 100 is what a sync stores per page.
    static func generate(spec: SyntheticSpec, path: String, pageSize: Int) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            FileHandle.standardError.write(Data("mirror-bench: \(path) exists; remove it first\n".utf8))
            exit(1)
        }
        let repository = SyntheticRepository(spec: spec)
        let store = try MirrorStore(path: path)
        let name = RepositoryName(owner: "bench", name: "synthetic")
        let stored = try store.ensureRepository(named: name)
        try store.recordAttempt(repositoryID: stored.id, branch: "main")
        let walk = try store.beginWalk(repositoryID: stored.id, branch: "main", headSHA: repository.sha(at: repository.headIndex))

        let clock = ContinuousClock()
        let start = clock.now
        var index = repository.headIndex
        var authorCommits = [Int](repeating: 0, count: repository.people.count)
        while index >= 0 {
            let lower = max(0, index - pageSize + 1)
            let page = (lower...index).reversed().map { i -> CommitPayload in
                authorCommits[repository.authorIndex(at: i)] += 1
                return payload(repository, at: i, repositoryName: name)
            }
            _ = try store.store(page: page.map(Commit.init), repositoryID: stored.id, walk: walk, nextURL: nil, pagesTotal: nil).outcome
            index = lower - 1
            if (repository.count - lower) % 100_000 == 0 {
                let seconds = (clock.now - start).components.seconds
                FileHandle.standardError.write(Data("mirror-bench: \(repository.count - lower) commits stored (\(seconds) s)\n".utf8))
            }
        }
        try store.finishWalk(walk)

        // A busy author (the most commits) and a mid-size one (near 1/1000 of the commits).
        let ranked = authorCommits.indices.sorted { authorCommits[$0] > authorCommits[$1] }
        let busy = ranked[0]
        let mid = ranked.min { abs(authorCommits[$0] - repository.count / 1_000) < abs(authorCommits[$1] - repository.count / 1_000) }!
        print("commits=\(repository.count)")
        print("busy_author=\(repository.people[busy].name)")
        print("busy_author_commits=\(authorCommits[busy])")
        print("mid_author=\(repository.people[mid].name)")
        print("mid_author_commits=\(authorCommits[mid])")
        print("sha=\(repository.sha(at: repository.count / 2))")
        print("seconds=\((clock.now - start).components.seconds)")
    }

    /// Median in-process milliseconds of each benchmark query, store open
    /// included. `authors` and `shas` are comma-separated lists.
    static func time(path: String, authors: String, shas: String, runs: Int) throws {
        var cases: [(String, (MirrorReader) throws -> Int)] = []
        for author in authors.split(separator: ",").map(String.init) {
            cases.append(
                ("query --author \"\(author)\" -n 50", { try $0.commits(matching: CommitFilter(author: author, limit: 50)).count }))
        }
        cases.append(("query --grep fix -n 50", { try $0.commits(matching: CommitFilter(grep: "fix", limit: 50)).count }))
        for sha in shas.split(separator: ",").map(String.init) {
            cases.append(
                (
                    "show \(sha.prefix(12))",
                    {
                        if case .found = try $0.resolveCommit(sha) { return 1 }
                        return 0
                    }
                ))
        }
        let clock = ContinuousClock()
        for (name, body) in cases {
            var samples: [Double] = []
            for _ in 0..<runs {
                let start = clock.now
                let store = try MirrorReader(path: path)
                guard try body(store) > 0 else {
                    FileHandle.standardError.write(Data("mirror-bench: \(name) found nothing\n".utf8))
                    exit(1)
                }
                let elapsed = clock.now - start
                samples.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
            }
            samples.sort()
            print(
                String(format: "%7.2f ms median (min %.2f, max %.2f)  ", samples[samples.count / 2], samples.first!, samples.last!) + name)
        }
    }

    /// Decodes every page file in `directory` (sorted by name), `runs` times, and
    /// prints `key=value` lines: commits, pages, bytes and per-run seconds.
    static func decode(directory: String, runs: Int) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        let pages = try names.map { name -> [UInt8] in
            Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
        }
        let decoder = PayloadDecoder()
        let clock = ContinuousClock()
        var commits = 0
        var samples: [Double] = []
        for _ in 0..<max(1, runs) {
            commits = 0
            let start = clock.now
            for page in pages {
                commits += try decoder.decodeCommitPage(page).count
            }
            let elapsed = clock.now - start
            samples.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        print("commits=\(commits)")
        print("pages=\(pages.count)")
        print("bytes=\(pages.reduce(0) { $0 + $1.count })")
        print("seconds=" + samples.map { String(format: "%.6f", $0) }.joined(separator: ","))
    }

    /// Writes a `git fast-import` stream of `commits` (parents before children) to
    /// stdout: one mark per commit, empty trees, branch `refs/heads/main`.
    static func fastImport(commits: some Sequence<DatasetCommit>) throws {
        var marks: [String: Int] = [:]
        var out: [UInt8] = []
        out.reserveCapacity(1 << 21)
        func flush() {
            FileHandle.standardOutput.write(Data(out))
            out.removeAll(keepingCapacity: true)
        }
        func signature(_ role: String, _ person: DatasetPerson) {
            let seconds = Int64((ISO8601Timestamp.parse(person.date) ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970)
            out += Array("\(role) \(person.name) <\(person.email)> \(seconds) +0000\n".utf8)
        }
        var mark = 0
        for commit in commits {
            mark += 1
            marks[commit.sha] = mark
            out += Array("commit refs/heads/main\nmark :\(mark)\n".utf8)
            signature("author", commit.author)
            signature("committer", commit.committer)
            let message = Array(commit.message.utf8)
            out += Array("data \(message.count)\n".utf8)
            out += message
            out += [10]
            for (position, parent) in commit.parents.enumerated() {
                guard let parentMark = marks[parent] else { continue }  // outside the history: a root here
                out += Array("\(position == 0 ? "from" : "merge") :\(parentMark)\n".utf8)
            }
            out += [10]
            if out.count >= 1 << 20 { flush() }
        }
        flush()
    }

    static func payload(_ repository: SyntheticRepository, at index: Int, repositoryName: RepositoryName) -> CommitPayload {
        let commit = repository.commit(at: index)
        func signature(_ person: DatasetPerson) -> GitSignature {
            GitSignature(
                name: person.name, email: person.email, date: ISO8601Timestamp.parse(person.date) ?? Date(timeIntervalSince1970: 0))
        }
        let login = repository.people[repository.authorIndex(at: index)].login
        return CommitPayload(
            sha: commit.sha,
            commit: GitCommit(
                author: signature(commit.author), committer: signature(commit.committer),
                message: commit.message, tree: nil),
            htmlURL: "https://github.com/\(repositoryName)/commit/\(commit.sha)",
            author: login.map { GitHubUser(login: $0) },
            committer: nil,
            parents: commit.parents.map { ParentReference(sha: $0) })
    }
}
