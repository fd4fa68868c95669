// Tags changed at run time, as a push of `refs/tags/NAME` changes them on GitHub: created, moved
// (force-pushed) or deleted; an annotated tag made here is a real tag object by the tagged
// commit's committer, an hour after the commit.

extension HostedRepository {
    /// Where a tag's ref pointed before a change (`nil`: it did not exist) and points after it.
    struct TagMove: Equatable {
        var before: String?
        var after: String
    }

    /// Points tag `name` at commit `sha` (creating or moving it): lightweight, or annotated with
    /// `message` when one is given.
    func setTag(_ name: String, to sha: String, message: String?) throws -> TagMove {
        try Self.checkTagName(name)
        return try update { state in
            guard let graph, let node = graph.node(forSHA: sha) else {
                throw SimulatorError(description: "no commit \(sha) in \(state.fullName)")
            }
            let commit = graph.sha(of: node)
            let tag: GitTag
            if let message {
                let committer = graph.record(of: node).committer
                let tagger = GitSignature(
                    name: committer.name, email: committer.email, time: graph.committerTime(of: node) + 3600, utcOffsetMinutes: 0,
                    user: nil)
                tag = .annotated(TagObject(objectSHA: commit, tagName: name, tagger: tagger, message: message), peeled: commit)
            } else {
                tag = .lightweight(name, commit: commit)
            }
            let before = state.tags[name]?.refTarget
            state.tags[name] = tag
            return TagMove(before: before, after: tag.refTarget)
        }
    }

    /// Deletes tag `name`; returns what its ref named.
    func deleteTag(_ name: String) throws -> String {
        try update { state in
            guard let tag = state.tags.removeValue(forKey: name) else {
                throw SimulatorError(description: "no tag \(name) in \(state.fullName)")
            }
            return tag.refTarget
        }
    }

    /// The annotated tag whose ref names tag object `sha`, among the tags served now.
    func annotatedTag(objectSHA sha: some StringProtocol, hostile: Set<HostileTag>) -> GitTag? {
        let key = sha.lowercased()
        return ServedTags(snapshot, graph: graph, hostile: hostile).tags.first { $0.annotation?.sha == key }
    }

    /// Tag object `sha`, whether a ref names it or another tag object does.
    func tagObject(sha: some StringProtocol, hostile: Set<HostileTag>) -> TagObject? {
        let key = sha.lowercased()
        return ServedTags(snapshot, graph: graph, hostile: hostile).tags.lazy.flatMap(\.objects).first { $0.sha == key }
    }

    /// git's rules for a ref name component path (git-check-ref-format), which GitHub enforces on a push.
    static func checkTagName(_ name: String) throws {
        let forbidden: Set<Character> = [" ", "~", "^", ":", "?", "*", "[", "\\", "\u{7F}"]
        let broken =
            name.isEmpty || name.hasPrefix("-") || name.hasPrefix("/") || name.hasSuffix("/") || name.hasSuffix(".")
            || name.contains("..") || name.contains("//") || name.contains("@{") || name == "@"
            || name.split(separator: "/").contains { $0.hasPrefix(".") || $0.hasSuffix(".lock") }
            || name.contains { forbidden.contains($0) || ($0.asciiValue ?? 32) < 32 }
        if broken { throw SimulatorError(description: "\(name) is not a valid tag name (git check-ref-format)") }
    }
}
