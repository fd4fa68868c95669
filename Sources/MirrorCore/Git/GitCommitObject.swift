import GitHash

/// A commit object as git stores it (gitformat-commit: headers, a blank line,
/// the message), parsed the way git parses it: `tree` first, then the
/// `parent` lines that follow it directly; `author`, `committer` and
/// `encoding` by their first occurrence; every other header (`gpgsig`,
/// `mergetag`, …) with its continuation lines skipped.
struct GitCommitObject: Equatable {
    var tree: ObjectID
    var parents: [ObjectID]
    var author: GitIdentityLine
    var committer: GitIdentityLine
    /// The `encoding` header, when present; text fields are already decoded from it.
    var encoding: String?
    /// The whole message, as stored (trailing newlines included).
    var message: String

    /// - Parameter id: the object's name, for error messages only.
    init(parsing body: [UInt8], id: ObjectID) throws {
        self = try body.withUnsafeBufferPointer { (body) throws in try GitCommitObject(body, id: id) }
    }

    private init(_ body: UnsafeBufferPointer<UInt8>, id: ObjectID) throws {
        func fail(_ detail: String) -> GitError { .malformedCommit(sha: id.hex, detail: detail) }
        var lineStart = 0
        /// The next header line (without LF), or nil at the blank line (or the end) ending the headers.
        func nextLine() -> Range<Int>? {
            guard lineStart < body.count, body[lineStart] != 0x0A else { return nil }
            var end = lineStart
            while end < body.count, body[end] != 0x0A { end += 1 }
            defer { lineStart = end + 1 }
            return lineStart..<end
        }
        func hasPrefix(_ line: Range<Int>, _ prefix: StaticString) -> Bool {
            guard line.count >= prefix.utf8CodeUnitCount else { return false }
            return prefix.withUTF8Buffer { prefix in
                prefix.indices.allSatisfy { body[line.lowerBound + $0] == prefix[$0] }
            }
        }
        guard let treeLine = nextLine(), hasPrefix(treeLine, "tree "), treeLine.count == 45,
            let tree = ObjectID(hex: UnsafeBufferPointer(rebasing: body[treeLine.lowerBound + 5..<treeLine.upperBound]))
        else { throw fail("it does not start with a tree line") }
        var parents: [ObjectID] = []
        var line = nextLine()
        while let parentLine = line, hasPrefix(parentLine, "parent ") {
            guard parentLine.count == 47,
                let parent = ObjectID(hex: UnsafeBufferPointer(rebasing: body[parentLine.lowerBound + 7..<parentLine.upperBound]))
            else { throw fail("a parent line is not 40 hex digits") }
            parents.append(parent)
            line = nextLine()
        }
        var authorLine: Range<Int>?
        var committerLine: Range<Int>?
        var encodingLine: Range<Int>?
        while let header = line {
            if authorLine == nil, hasPrefix(header, "author ") {
                authorLine = header.lowerBound + 7..<header.upperBound
            } else if committerLine == nil, hasPrefix(header, "committer ") {
                committerLine = header.lowerBound + 10..<header.upperBound
            } else if encodingLine == nil, hasPrefix(header, "encoding ") {
                encodingLine = header.lowerBound + 9..<header.upperBound
            }
            // Anything else, continuation lines (" …") of gpgsig or mergetag included, is skipped.
            line = nextLine()
        }
        guard let authorLine else { throw fail("it has no author line") }
        guard let committerLine else { throw fail("it has no committer line") }
        let encoding = encodingLine.map { String(decoding: UnsafeBufferPointer(rebasing: body[$0]), as: UTF8.self) }
        let messageStart = min(lineStart + 1, body.count)
        self.tree = tree
        self.parents = parents
        self.encoding = encoding
        // A line git itself would show as `<>` at the epoch: refused, so the commit is
        // never stored with invented values (GitHub's REST listing gives its real ones).
        func identity(_ line: Range<Int>, _ header: String) throws -> GitIdentityLine {
            do {
                return try GitIdentityLine(UnsafeBufferPointer(rebasing: body[line]), encoding: encoding)
            } catch {
                throw fail("its \(header) line \(error.problem)")
            }
        }
        self.author = try identity(authorLine, "author")
        self.committer = try identity(committerLine, "committer")
        self.message = GitTextDecoding.decode(UnsafeBufferPointer(rebasing: body[messageStart...]), encoding: encoding)
    }
}

/// `Name <email> 1700000000 +0200`, split as git's `split_ident_line` does:
/// the name ends before `<` (trailing spaces dropped), the email ends at the
/// first `>`, the date follows the last `>`. A line without `<email>`, or
/// without a date this mirror can store, is `Malformed`: git would show it as
/// `<>` or at the epoch, values the commit never had.
struct GitIdentityLine: Equatable {
    struct Malformed: Error {
        /// "has no <email>", "has no date" …, after "its author line".
        var problem: String
    }

    var name: String
    var email: String
    /// Seconds since the epoch, UTC.
    var time: Int64
    /// The author's or committer's own offset from UTC, in minutes (`+0530` → 330).
    var utcOffsetMinutes: Int

    init(name: String, email: String, time: Int64, utcOffsetMinutes: Int) {
        self.name = name
        self.email = email
        self.time = time
        self.utcOffsetMinutes = utcOffsetMinutes
    }

    /// The latest time accepted: 9999-12-31T23:59:59Z, as far as GitHub renders dates.
    static let latestTime: Int64 = 253_402_300_799

    init(_ line: UnsafeBufferPointer<UInt8>, encoding: String?) throws(Malformed) {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0B || byte == 0x0C }
        name = ""
        email = ""
        time = 0
        utcOffsetMinutes = 0
        guard let open = line.firstIndex(of: 0x3C), let close = line[(open + 1)...].firstIndex(of: 0x3E) else {
            throw Malformed(problem: "has no <email>")
        }
        var nameEnd = open
        while nameEnd > 0, isSpace(line[nameEnd - 1]) { nameEnd -= 1 }
        name = GitTextDecoding.decode(UnsafeBufferPointer(rebasing: line[0..<nameEnd]), encoding: encoding)
        email = GitTextDecoding.decode(UnsafeBufferPointer(rebasing: line[(open + 1)..<close]), encoding: encoding)
        var index = line.lastIndex(of: 0x3E)! + 1
        while index < line.count, isSpace(line[index]) { index += 1 }
        var seconds: Int64 = 0
        var digits = 0
        while index < line.count, (0x30...0x39).contains(line[index]) {
            let (shifted, overflow1) = seconds.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int64(line[index] - 0x30))
            seconds = overflow1 || overflow2 ? Int64.max : sum
            index += 1
            digits += 1
        }
        guard digits > 0 else { throw Malformed(problem: "has no date") }
        guard seconds <= Self.latestTime else { throw Malformed(problem: "has a date after the year 9999") }
        time = seconds
        while index < line.count, isSpace(line[index]) { index += 1 }
        guard index < line.count, line[index] == 0x2B || line[index] == 0x2D else { return }
        let sign = line[index] == 0x2D ? -1 : 1
        index += 1
        var zone = 0
        var zoneDigits = 0
        while index < line.count, (0x30...0x39).contains(line[index]), zoneDigits < 4 {
            zone = zone * 10 + Int(line[index] - 0x30)
            index += 1
            zoneDigits += 1
        }
        utcOffsetMinutes = sign * (zone / 100 * 60 + zone % 100)
    }
}
