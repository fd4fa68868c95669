// A generated history that scales to millions of commits: every commit's content is a pure
// function of (seed, index), and its sha is the real git name of its commit object, which names its
// parents' shas; so the shas are computed once, in index order, and kept (20 bytes a commit,
// `ObjectNameTable`).
//
// Index 0 is the root, index count-1 the head. Commit i is committed at 2015-01-01 + 600·i s, so
// descending index is git-log order. With mergeEvery = m, each i ≥ 2 with i % m == 0 is a merge
// with parents [i-2, i-1], and i-1 is its side commit: off i-2 (a one-commit side branch), or,
// with sideBranchMerges = s > 1, off the previous merge's side commit i-1-m, except every s-th
// merge's, which starts a new side branch off i-2. The first-parent chain therefore skips side
// commits, and every index ≤ h is reachable from any commit h.

/// A member of the generated author pool.
public struct SyntheticPerson: Sendable, Hashable {
    public var name: String
    public var email: String
    /// The GitHub login, or nil when the email belongs to no account (top-level `author: null`).
    public var login: String?
    public var userID: Int?
    /// The time zone of this person's git dates, in minutes east of UTC (REST shows UTC).
    public var utcOffsetMinutes: Int
}

public struct SyntheticRepository: Sendable {
    public let spec: SyntheticSpec
    /// The author pool; commits pick from it with a Zipf(1) distribution, so pool[0] is the busiest.
    public let people: [SyntheticPerson]
    private let users: [SimUser?]
    private let zipfCDF: [Double]
    private let mergeEvery: Int
    private let sideBranchMerges: Int
    private let treeKey: UInt64
    /// The commits' real git names, computed on first use (or by `prepareObjectNames`).
    private let names: LazyObjectNames

    /// 2015-01-01T00:00:00Z, the committer date of index 0.
    public static let firstCommitTime: Int64 = 1_420_070_400
    public static let secondsBetweenCommits: Int64 = 600

    // Salts for independent hash streams.
    private enum Salt {
        static let newline: UInt64 = 3
        static let treeHigh: UInt64 = 4, treeMid: UInt64 = 5, treeKey: UInt64 = 6
        static let author: UInt64 = 7, committer: UInt64 = 8, authorLag: UInt64 = 9
        static let person: UInt64 = 10, personFirst: UInt64 = 11, personLast: UInt64 = 12
        static let subject: UInt64 = 13, body: UInt64 = 14, isFix: UInt64 = 15, webFlow: UInt64 = 16
    }

    public init(spec: SyntheticSpec) {
        self.spec = spec
        mergeEvery = spec.mergeEvery <= 0 ? 0 : max(2, spec.mergeEvery)
        sideBranchMerges = max(1, spec.sideBranchMerges)
        treeKey = Hashing.value(spec.seed, 0, Salt.treeKey)
        let people = Self.makePeople(count: max(1, spec.authors), seed: spec.seed)
        self.people = people
        users = people.map { person in person.login.map { SimUser(login: $0, id: person.userID!) } }
        var cdf = [Double]()
        var total = 0.0
        for k in 0..<people.count {
            total += 1.0 / Double(k + 1)
            cdf.append(total)
        }
        zipfCDF = cdf.map { $0 / total }
        names = LazyObjectNames.shared(for: spec)
    }

    public var count: Int { max(0, spec.commits) }
    public var headIndex: Int { count - 1 }

    // MARK: - Graph shape

    public func isMerge(at index: Int) -> Bool {
        mergeEvery > 0 && index >= 2 && index < count && index % mergeEvery == 0
    }

    /// A commit reachable only through the next commit's second parent.
    public func isSideCommit(at index: Int) -> Bool { isMerge(at: index + 1) }

    public func parentIndices(at index: Int) -> [Int] {
        if index == 0 { return [] }
        if isMerge(at: index) { return [index - 2, index - 1] }
        // A long-lived side branch goes on from the previous merge's side commit.
        if isSideCommit(at: index), (index + 1) / mergeEvery % sideBranchMerges != 0, isSideCommit(at: index - mergeEvery) {
            return [index - mergeEvery]
        }
        return [index - 1]
    }

    public func committerTime(at index: Int) -> Int64 {
        Self.firstCommitTime + Int64(index) * Self.secondsBetweenCommits
    }

    // MARK: - Object ids

    /// The real git name of commit `index`'s object.
    public func sha(at index: Int) -> String { objectNames.hex(at: index) }

    /// Not a real tree (a commits-only history has none): 24 hex digits of hash, then 16 of the
    /// index XOR a seed key, so no two commits share one.
    public func treeSHA(at index: Int) -> String {
        String(unsafeUninitializedCapacity: 40) { buffer in
            let p = buffer.baseAddress!
            Hex.write(Hashing.value(spec.seed, index, Salt.treeHigh), width: 16, to: p)
            Hex.write(Hashing.value(spec.seed, index, Salt.treeMid) >> 32, width: 8, to: p + 16)
            Hex.write(UInt64(index) ^ treeKey, width: 16, to: p + 24)
            return 40
        }
    }

    /// The index of a commit sha of this repository (either case), or nil.
    public func index(ofSHA sha: some StringProtocol) -> Int? {
        guard let name = ObjectNameTable.name(hex: sha) else { return nil }
        return objectNames.index(of: name)
    }

    /// Computes every commit's name now rather than on first use (a simulator does it before it
    /// serves, so no request pays for it).
    public func prepareObjectNames() { _ = objectNames }

    var objectNames: ObjectNameTable {
        names.table { ObjectNameTable(count: count) { index, names in commitObject(at: index, names: names) } }
    }

    // MARK: - People

    /// Index into `people` of the author of commit `index`.
    public func authorIndex(at index: Int) -> Int {
        zipfPick(Hashing.unit(spec.seed, index, Salt.author))
    }

    private func zipfPick(_ u: Double) -> Int {
        var lo = 0
        var hi = zipfCDF.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if zipfCDF[mid] > u { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    private static func makePeople(count: Int, seed: UInt64) -> [SyntheticPerson] {
        var usedLocals = Set<String>()
        var people = [SyntheticPerson]()
        people.reserveCapacity(count)
        for k in 0..<count {
            let h = Hashing.value(seed, k, Salt.person)
            var name: String
            var local: String
            if h % 100 < 15 {
                let entry = SyntheticText.internationalNames[Int(h / 100 % UInt64(SyntheticText.internationalNames.count))]
                (name, local) = (entry.name, entry.local)
            } else {
                let first = SyntheticText.firstNames[Int(Hashing.value(seed, k, Salt.personFirst) % UInt64(SyntheticText.firstNames.count))]
                let last = SyntheticText.lastNames[Int(Hashing.value(seed, k, Salt.personLast) % UInt64(SyntheticText.lastNames.count))]
                name = "\(first) \(last)"
                local = "\(first).\(last)".lowercased()
            }
            if !usedLocals.insert(local).inserted {
                local += String(k)
                usedLocals.insert(local)
            }
            let domain = SyntheticText.domains[Int(h >> 20 % UInt64(SyntheticText.domains.count))]
            let hasAccount = (h >> 32) % 10 != 0
            let zone = SyntheticText.utcOffsetsMinutes[Int(h >> 44 % UInt64(SyntheticText.utcOffsetsMinutes.count))]
            people.append(
                SyntheticPerson(
                    name: name, email: "\(local)@\(domain)",
                    login: hasAccount ? SimUser.sanitizedLogin(local) : nil,
                    userID: hasAccount ? 1_000_000 + k * 7 + Int(h >> 40 % 7) : nil, utcOffsetMinutes: zone))
        }
        return people
    }

    // MARK: - Commits

    /// The commit at `index` as a dataset line would hold it (dates in UTC).
    public func commit(at index: Int) -> DatasetCommit {
        let r = record(at: index)
        func person(_ p: PersonRecord) -> DatasetPerson { DatasetPerson(name: p.name, email: p.email, date: p.date) }
        return DatasetCommit(
            sha: r.sha, parents: r.parents, tree: r.tree, author: person(r.author), committer: person(r.committer),
            message: r.message)
    }

    func record(at index: Int) -> CommitRecord {
        let content = content(at: index)
        func rest(_ signature: GitSignature) -> PersonRecord {
            PersonRecord(
                name: signature.name, email: signature.email, date: Timestamp.iso8601UTC(signature.time), user: signature.user)
        }
        return CommitRecord(
            sha: sha(at: index), parents: parentIndices(at: index).map(sha(at:)), tree: treeSHA(at: index),
            author: rest(content.author), committer: rest(content.committer), message: content.message)
    }

    /// Commit `index`'s object body (what git hashes after `commit <size>\0`), parents named by `names`.
    func commitObject(at index: Int, names: ObjectNameList) -> [UInt8] {
        let content = content(at: index)
        var body = CommitObjectWriter(tree: treeSHA(at: index))
        for parent in parentIndices(at: index) { body.parent(names.hex(at: parent)) }
        body.signature("author", content.author, bracketingEmail: index != spec.malformedAuthorLineAt)
        body.signature("committer", content.committer)
        body.message(content.message, newlineAtEnd: content.newlineAtEnd)
        return body.bytes
    }

    /// Commit `index`'s object body, as the pack carries it.
    func commitObject(at index: Int) -> [UInt8] {
        commitObject(at: index, names: objectNames.list)
    }

    /// What commit `index` says, before any sha: the REST element and the git object both render it.
    private func content(at index: Int) -> CommitContent {
        let committerTime = self.committerTime(at: index)
        let lag = Int64(Hashing.value(spec.seed, index, Salt.authorLag) % (3 * 86400 + 1))
        let authorSlot = authorIndex(at: index)
        let author = signature(authorSlot, time: committerTime - lag)
        let committer: GitSignature
        let merge = isMerge(at: index)
        let roll = Hashing.value(spec.seed, index, Salt.webFlow) % 100
        if merge && roll < 75 {
            committer = GitSignature(
                name: "GitHub", email: "noreply@github.com", time: committerTime, utcOffsetMinutes: 0, user: .webFlow)
        } else if !merge && roll < 8 {
            committer = signature(zipfPick(Hashing.unit(spec.seed, index, Salt.committer)), time: committerTime)
        } else {
            committer = signature(authorSlot, time: committerTime)
        }
        // git ends a message with a newline, which REST drops; a few commits (made by other
        // tools) have none, which REST shows unchanged.
        let newlineAtEnd = Hashing.value(spec.seed, index, Salt.newline) % 100 >= 4
        return CommitContent(
            author: author, committer: committer, message: merge ? mergeMessage(index) : message(index),
            newlineAtEnd: newlineAtEnd)
    }

    private func signature(_ slot: Int, time: Int64) -> GitSignature {
        let person = people[slot]
        return GitSignature(
            name: person.name, email: person.email, time: time, utcOffsetMinutes: person.utcOffsetMinutes, user: users[slot])
    }

    private func pick<T>(_ list: [T], _ index: Int, _ salt: UInt64, _ offset: Int = 0) -> T {
        list[Int(Hashing.value(spec.seed, index, salt &+ UInt64(offset) << 8) % UInt64(list.count))]
    }

    private func subject(_ index: Int) -> String {
        if Hashing.unit(spec.seed, index, Salt.isFix) < 0.17 {
            let template = pick(SyntheticText.fixTemplates, index, Salt.subject, 1)
            let problem = pick(SyntheticText.problems, index, Salt.subject, 2)
            return template == "Fixes #" ? "Fixes #\(index % 5000 + 1): \(problem)" : template + problem
        }
        return pick(SyntheticText.verbs, index, Salt.subject, 3) + " " + pick(SyntheticText.objects, index, Salt.subject, 4)
    }

    private func message(_ index: Int) -> String {
        var text = subject(index)
        let kind = Hashing.value(spec.seed, index, Salt.body) % 100
        func paragraph(_ n: Int) -> String {
            let sentences = 1 + Int(Hashing.value(spec.seed, index, Salt.body &+ UInt64(n + 1) << 16) % 3)
            return (0..<sentences).map { pick(SyntheticText.sentences, index, Salt.body, n * 4 + $0) }.joined(separator: " ")
        }
        switch kind {
        case 0..<45:
            break  // subject only
        case 45..<80:
            text += "\n\n" + paragraph(0)
        case 80..<95:
            text += "\n\n" + paragraph(0) + "\n\n" + paragraph(1)
        default:
            let items = 2 + index % 3
            text += "\n\n" + (0..<items).map { "- " + pick(SyntheticText.bullets, index, Salt.body, 20 + $0) }.joined(separator: "\n")
            let coauthor = people[zipfPick(Hashing.unit(spec.seed, index, Salt.committer))]
            text += "\n\nCo-authored-by: \(coauthor.name) <\(coauthor.email)>"
        }
        return text
    }

    private func mergeMessage(_ index: Int) -> String {
        let sideSubject = subject(index - 1)
        let side = people[authorIndex(at: index - 1)]
        let login = side.login ?? SimUser.sanitizedLogin(side.email.prefix { $0 != "@" })
        var branch = ""
        for scalar in sideSubject.lowercased().unicodeScalars {
            if scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) {
                branch.unicodeScalars.append(scalar)
            } else if !branch.isEmpty && !branch.hasSuffix("-") {
                branch += "-"
            }
            if branch.count >= 40 { break }
        }
        while branch.hasSuffix("-") { branch.removeLast() }
        return "Merge pull request #\(index / mergeEvery) from \(login)/\(branch)\n\n\(sideSubject)"
    }
}

// MARK: - Serving

extension SyntheticRepository: CommitGraph, GitObjectGraph {
    var initialHead: Int { headIndex }
    var cachesRenderedElements: Bool { false }
    var gitObjects: (any GitObjectGraph)? { self }

    func commitObject(of node: Int) -> [UInt8] { commitObject(at: node) }
    func parents(of node: Int) -> [Int] { parentIndices(at: node) }
    var nodeOrder: GitNodeOrder { .parentsFirst }

    func node(forSHA sha: some StringProtocol) -> Int? { index(ofSHA: sha) }
    func sha(of node: Int) -> String { sha(at: node) }
    func committerTime(of node: Int) -> Int64 { committerTime(at: node) }
    func record(of node: Int) -> CommitRecord { record(at: node) }
    func firstParent(of node: Int) -> Int? { parentIndices(at: node).first }

    func firstParentSuccessor(of node: Int) -> Int? {
        let next = node + 1
        guard next < count else { return nil }
        return isSideCommit(at: next) ? next + 1 : next
    }

    /// Committer dates grow with the index, so date bounds are index bounds.
    func listing(from start: Int, since: Int64?, until: Int64?) -> CommitListing {
        var upper = start
        var lower = 0
        let step = Self.secondsBetweenCommits
        if let since {
            let offset = since - Self.firstCommitTime
            lower = offset <= 0 ? 0 : Int((offset + step - 1) / step)
        }
        if let until {
            let offset = until - Self.firstCommitTime
            upper = offset < 0 ? -1 : min(start, Int(offset / step))
        }
        return .descending(upper: upper, lower: lower)
    }
}
