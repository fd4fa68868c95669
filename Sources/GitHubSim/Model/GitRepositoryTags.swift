// A git repository's tags, read with `git for-each-ref` and `git cat-file`: lightweight tags as
// the commit they name, annotated ones as their raw tag objects (so their ids are git's), each
// peeled through any chain of tag objects to the commit it ends at.

import Foundation

enum GitRepositoryTags {
    /// Every ref under refs/tags, and the commits they end at (which the history must include).
    struct Listing {
        var tags: [GitTag]
        /// The `for-each-ref` text, which names the tags' state for a cache key.
        var refs: String
        var peeledCommits: [String] { tags.compactMap(\.peeled) }
    }

    static func read(_ git: GitProcess) throws -> Listing {
        let output = try git.run(["for-each-ref", "--format=%(objectname) %(objecttype) %(refname)", "refs/tags"]).output
        let refs = String(decoding: output, as: UTF8.self)
        var lightweight: [(name: String, sha: String)] = []
        var annotated: [(name: String, sha: String)] = []
        for line in refs.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, fields[2].hasPrefix("refs/tags/") else { continue }
            let name = String(fields[2].dropFirst(10))
            switch fields[1] {
            case "commit": lightweight.append((name, String(fields[0])))
            case "tag": annotated.append((name, String(fields[0])))
            default: continue  // a tag of a tree or a blob reaches no commit: nothing to serve it with
            }
        }
        let objects = try tagObjects(reachableFrom: annotated.map(\.sha), git: git)
        var tags = lightweight.map { GitTag.lightweight($0.name, commit: $0.sha) }
        for (name, sha) in annotated {
            guard let object = objects[sha] else { continue }
            var tag = GitTag.annotated(object, peeled: peel(object, objects: objects))
            tag.name = name
            tags.append(tag)
        }
        return Listing(tags: tags, refs: refs)
    }

    /// The commit a chain of tag objects ends at; nil for a tree, a blob or a cycle.
    private static func peel(_ object: TagObject, objects: [String: TagObject]) -> String? {
        var current = object
        for _ in 0..<objects.count + 1 {
            switch current.objectType {
            case "commit": return current.objectSHA
            case "tag":
                guard let next = objects[current.objectSHA] else { return nil }
                current = next
            default: return nil
            }
        }
        return nil
    }

    /// The tag objects `shas` name and those they name in turn, read with `cat-file --batch`.
    private static func tagObjects(reachableFrom shas: [String], git: GitProcess) throws -> [String: TagObject] {
        var objects: [String: TagObject] = [:]
        var pending = shas
        while !pending.isEmpty {
            let input = git.scratch.appendingPathComponent("tags-\(objects.count)")
            try Data(pending.map { $0 + "\n" }.joined().utf8).write(to: input)
            let batch = [UInt8](try git.run(["cat-file", "--batch"], input: input).output)
            var position = 0
            pending = []
            while let headerEnd = batch[position...].firstIndex(of: UInt8(ascii: "\n")) {
                let fields = String(decoding: batch[position..<headerEnd], as: UTF8.self).split(separator: " ")
                if fields.count == 2 && fields[1] == "missing" {
                    position = headerEnd + 1
                    continue
                }
                guard fields.count == 3, let size = Int(fields[2]), headerEnd + 1 + size <= batch.count else {
                    throw GitRepositoryError(
                        path: git.path, reason: "git cat-file --batch answered \"\(fields.joined(separator: " "))\" for a tag")
                }
                let body = Array(batch[(headerEnd + 1)..<(headerEnd + 1 + size)])
                position = min(headerEnd + 2 + size, batch.count)
                guard fields[1] == "tag", let object = TagObject(body: body) else { continue }
                objects[String(fields[0])] = object
                if object.objectType == "tag", objects[object.objectSHA] == nil { pending.append(object.objectSHA) }
            }
        }
        return objects
    }
}
