// A repository's tags: `refs/tags/NAME` pointing at a commit (a lightweight tag) or at an
// annotated tag object, whose body and name are git's (gitformat-tag: `object`, `type`, `tag`,
// `tagger`, a blank line, the message) so every id a client computes matches.

import Foundation
import GitHash

/// An annotated tag object: its git name, its raw body, and the fields parsed from it.
struct TagObject: Sendable, Equatable {
    /// The object's git name: SHA-1 of `tag <size>\0` and the body (another id only for a
    /// fabricated hostile object).
    fileprivate(set) var sha: String
    let body: [UInt8]
    /// What the object names, and that object's type (`commit`, or for hostile tags `tree`, `blob`, `tag`).
    let objectSHA: String
    let objectType: String
    let tagName: String
    let tagger: GitSignature?
    let message: String

    /// The object git writes for these fields.
    init(objectSHA: String, objectType: String = "commit", tagName: String, tagger: GitSignature, message: String) {
        var writer = CommitObjectWriter(header: "object", value: objectSHA)
        writer.header("type", objectType)
        writer.header("tag", tagName)
        writer.signature("tagger", tagger)
        writer.message(message, newlineAtEnd: !message.hasSuffix("\n"))
        self.init(validatedBody: writer.bytes, objectSHA: objectSHA, objectType: objectType, tagName: tagName, tagger: tagger)
    }

    private init(validatedBody body: [UInt8], objectSHA: String, objectType: String, tagName: String, tagger: GitSignature?) {
        self.body = body
        sha = Self.name(of: body)
        self.objectSHA = objectSHA
        self.objectType = objectType
        self.tagName = tagName
        self.tagger = tagger
        let text = String(decoding: body, as: UTF8.self)
        message = text.range(of: "\n\n").map { String(text[$0.upperBound...]) } ?? ""
    }

    /// Two objects are the same object when they have the same id and the same bytes.
    static func == (a: TagObject, b: TagObject) -> Bool { a.sha == b.sha && a.body == b.body }

    /// A tag object as git stores it (`git cat-file tag`); nil when it lacks `object`, `type` or `tag`.
    init?(body: [UInt8]) {
        let text = String(decoding: body, as: UTF8.self)
        let headerEnd = text.range(of: "\n\n")?.lowerBound ?? text.endIndex
        var fields: [Substring: Substring] = [:]
        for line in text[..<headerEnd].split(separator: "\n") {
            guard let space = line.firstIndex(of: " ") else { continue }
            fields[line[..<space]] = fields[line[..<space]] ?? line[line.index(after: space)...]
        }
        guard let object = fields["object"], let type = fields["type"], let tag = fields["tag"] else { return nil }
        let tagger = fields["tagger"].flatMap(GitSignature.init(identLine:))
        self.init(validatedBody: body, objectSHA: String(object), objectType: String(type), tagName: String(tag), tagger: tagger)
    }

    static func name(of body: [UInt8]) -> String {
        var hasher = SHA1()
        hasher.update(Array("tag \(body.count)\0".utf8))
        hasher.update(body)
        return SHA1.hex(hasher.finalize())
    }

    /// The message's first line, as GitHub titles a release made from the tag.
    var subject: String { String(message.prefix { $0 != "\n" }) }
}

extension TagObject {
    /// The same object under an id that is not its name, as only a hostile server would serve it.
    func fabricated(id: String) -> TagObject {
        var copy = self
        copy.sha = id
        return copy
    }
}

/// One tag of a repository.
struct GitTag: Sendable, Equatable {
    var name: String
    /// nil for a lightweight tag.
    var annotation: TagObject?
    /// What `refs/tags/NAME` names: the commit itself, or the tag object.
    var refTarget: String
    /// The commit the tag ends at (`NAME^{}`); nil when it ends at no commit of the history.
    var peeled: String?
    /// What a lightweight tag names when it is no commit (a hostile tag of a blob).
    var lightweightType = "commit"
    /// The tag objects an annotated tag's object leads through before it ends (a chain of tags).
    var chained: [TagObject] = []

    static func lightweight(_ name: String, commit: String) -> GitTag {
        GitTag(name: name, annotation: nil, refTarget: commit, peeled: commit)
    }

    static func annotated(_ object: TagObject, peeled: String?) -> GitTag {
        GitTag(name: object.tagName, annotation: object, refTarget: object.sha, peeled: peeled)
    }

    /// The type of the object `refs/tags/NAME` names, as `/git/refs` shows it.
    var refTargetType: String { annotation == nil ? lightweightType : "tag" }

    /// What git's ref listing shows as `NAME^{}`: the object the chain of tag objects ends at,
    /// commit or not; nil for a lightweight tag, or a chain that ends nowhere (a cycle).
    var peeledObject: String? {
        guard let annotation else { return nil }
        if let peeled { return peeled }
        let last = chained.last ?? annotation
        return last.objectType == "tag" ? nil : last.objectSHA
    }

    /// Every tag object this tag consists of, its own first.
    var objects: [TagObject] { (annotation.map { [$0] } ?? []) + chained }

    var refName: String { "refs/tags/\(name)" }
}

extension GitSignature {
    /// `Name <email> 1420070400 +0530`, the ident of a `tagger` or `author` line.
    init?(identLine line: Substring) {
        guard let open = line.firstIndex(of: "<"), let close = line[open...].firstIndex(of: ">") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        guard fields.count == 2, let time = Int64(fields[0]), fields[1].count == 5, let hhmm = Int(fields[1].dropFirst()) else {
            return nil
        }
        let minutes = hhmm / 100 * 60 + hhmm % 100
        self.init(
            name: String(line[..<open].trimmingASCIISpaces), email: String(line[line.index(after: open)..<close]), time: time,
            utcOffsetMinutes: fields[1].hasPrefix("-") ? -minutes : minutes, user: nil)
    }
}
