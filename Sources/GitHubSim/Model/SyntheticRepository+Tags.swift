// A generated history's tags, a pure function of the spec: with tagEvery = n, release tag k
// (`v1.k.0`, k from 1) names first-parent commit k·n (or the one after it when k·n is a side
// commit), every third one annotated by the author of the commit it tags, an hour after that
// commit; and every fourth release gets a lightweight `side-k` on the side commit just below it,
// which only a merge's second parent reaches.

extension SyntheticRepository {
    /// Every tag of the history, in release order.
    var initialTags: [GitTag] {
        guard spec.tagEvery > 0, count > 0 else { return [] }
        var tags: [GitTag] = []
        var k = 1
        while k * spec.tagEvery < count {
            var index = k * spec.tagEvery
            if isSideCommit(at: index), index + 1 < count { index += 1 }
            let name = "v1.\(k).0"
            if k % 3 == 0 {
                tags.append(.annotated(annotation(name: name, index: index), peeled: sha(at: index)))
            } else {
                tags.append(.lightweight(name, commit: sha(at: index)))
            }
            if k % 4 == 0, let side = sideCommit(below: index) {
                tags.append(.lightweight("side-\(k)", commit: sha(at: side)))
            }
            k += 1
        }
        return tags
    }

    /// The annotated tag object `name` on commit `index`, as its author would have written it.
    func annotation(name: String, index: Int, message: String? = nil) -> TagObject {
        let person = people[authorIndex(at: index)]
        let tagger = GitSignature(
            name: person.name, email: person.email, time: committerTime(at: index) + 3600,
            utcOffsetMinutes: person.utcOffsetMinutes, user: nil)
        return TagObject(objectSHA: sha(at: index), tagName: name, tagger: tagger, message: message ?? "Release \(name)\n")
    }

    private func sideCommit(below index: Int) -> Int? {
        stride(from: index - 1, through: 1, by: -1).lazy.prefix(max(2, spec.mergeEvery) + 1).first(where: isSideCommit(at:))
    }
}
