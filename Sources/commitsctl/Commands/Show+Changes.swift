import MirrorCore

extension Commitsctl.Show {
    /// Which list of changed paths `show` prints after the commit, as git's options name them.
    enum ChangeList {
        case nameStatus, nameOnly
    }

    /// The lines `git show --name-status` (or `--name-only`) prints for the
    /// commit: its paths against the first parent (a root's against the empty
    /// tree); for a merge, git's combined list: the paths that differ from every
    /// parent, with a status letter per parent.
    static func changeLines(_ changes: [FileChange], parents: Int, list: ChangeList) -> [String] {
        guard parents > 1 else {
            return changes.filter { $0.parent == 0 }.map { change in
                list == .nameOnly ? change.quotedPath : "\(change.status.rawValue)\t\(change.quotedPath)"
            }
        }
        var byParent = [[[UInt8]: FileChange]](repeating: [:], count: parents)
        for change in changes where change.parent < parents { byParent[change.parent][change.path] = change }
        return changes.filter { $0.parent == 0 }.compactMap { first in
            let each = byParent.compactMap { $0[first.path] }
            guard each.count == parents else { return nil }
            return list == .nameOnly ? first.quotedPath : "\(String(each.map(\.status.rawValue).joined()))\t\(first.quotedPath)"
        }
    }

    /// `show`'s `files` field: each change against each parent, null while the
    /// commit's paths are not stored yet.
    static func filesField(_ changes: [FileChange]?) -> JSONValue {
        guard let changes else { return .null }
        return .array(
            changes.map { change in
                .object([
                    ("path", .string(String(validating: change.path, as: UTF8.self) ?? change.quotedPath)),
                    ("status", .string(change.status.rawValue)),
                    ("parent", .int(change.parent)),
                    ("old_mode", .optional(change.old?.modeText)), ("old_id", .optional(change.old?.objectID)),
                    ("new_mode", .optional(change.new?.modeText)), ("new_id", .optional(change.new?.objectID)),
                ])
            })
    }
}

/// Why `show` cannot list a commit's paths.
struct ChangesNotStored: Error, CustomStringConvertible {
    let sha: String

    var description: String {
        "the paths commit \(sha) changed are not stored yet (it was read without its trees); "
            + "`commitsctl sync` reads them over git, and `commitsctl status` shows how many commits are covered"
    }
}
