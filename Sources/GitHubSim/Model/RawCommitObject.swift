// A commit object's bytes as git stores them (gitformat-commit), read into the dataset line REST
// shows of it: `tree`, `parent` lines, `author`/`committer` idents, other headers (gpgsig,
// mergetag, encoding; continuation lines start with a space), a blank line, the message.

enum RawCommitObject {
    /// What of a commit object cannot be read.
    struct Unreadable: Error {
        var reason: String
    }

    /// The commit `sha` whose object body is `body`.
    static func datasetCommit(sha: String, body: ArraySlice<UInt8>) throws(Unreadable) -> DatasetCommit {
        var tree: String?
        var parents: [String] = []
        var author: DatasetPerson?
        var committer: DatasetPerson?
        var position = body.startIndex
        var messageStart = body.endIndex
        while position < body.endIndex {
            let lineEnd = body[position...].firstIndex(of: newline) ?? body.endIndex
            let line = body[position..<lineEnd]
            position = lineEnd == body.endIndex ? lineEnd : lineEnd + 1
            if line.isEmpty {
                messageStart = position
                break
            }
            if line.first == space { continue }  // a multi-line header's continuation
            let keyEnd = line.firstIndex(of: space) ?? line.endIndex
            let value = line[(keyEnd == line.endIndex ? keyEnd : keyEnd + 1)...]
            switch String(decoding: line[..<keyEnd], as: UTF8.self) {
            case "tree": tree = String(decoding: value, as: UTF8.self)
            case "parent": parents.append(String(decoding: value, as: UTF8.self))
            case "author": author = person(value)
            case "committer": committer = person(value)
            default: continue
            }
        }
        guard let tree else { throw Unreadable(reason: "commit \(sha) has no tree line") }
        guard let author else { throw Unreadable(reason: "commit \(sha) has no readable author line") }
        guard let committer else { throw Unreadable(reason: "commit \(sha) has no readable committer line") }
        return DatasetCommit(
            sha: sha, parents: parents, tree: tree, author: author, committer: committer,
            message: String(decoding: body[messageStart...], as: UTF8.self))
    }

    private static let newline = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " ")

    /// `Name <email> EPOCH +HHMM`, read as git's `split_ident_line` reads it: the email between the
    /// first `<` and the next `>`, the date after the last `>`. An ident without `<…>`
    /// (`Name email EPOCH +HHMM`, as some imported histories have) takes its last word before the
    /// date as the email. The date is shown in UTC, as REST shows it.
    private static func person(_ value: ArraySlice<UInt8>) -> DatasetPerson? {
        let name: ArraySlice<UInt8>
        let email: ArraySlice<UInt8>
        let dateFields: [ArraySlice<UInt8>]
        if let open = value.firstIndex(of: UInt8(ascii: "<")), let close = value[open...].firstIndex(of: UInt8(ascii: ">")),
            let last = value.lastIndex(of: UInt8(ascii: ">"))
        {
            name = value[..<open]
            email = value[(open + 1)..<close]
            dateFields = value[(last + 1)...].split(separator: space)
        } else {
            let words = value.split(separator: space)
            guard words.count >= 3 else { return nil }
            dateFields = Array(words.suffix(2))
            email = words[words.count - 3]
            name = value[..<email.startIndex]
        }
        guard let epochField = dateFields.first, let epoch = Int64(String(decoding: epochField, as: UTF8.self)) else {
            return nil
        }
        var trimmedName = name
        while trimmedName.last == space { trimmedName.removeLast() }
        return DatasetPerson(
            name: String(decoding: trimmedName, as: UTF8.self), email: String(decoding: email, as: UTF8.self),
            date: Timestamp.iso8601UTC(epoch))
    }
}
