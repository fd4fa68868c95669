/// A `git fast-import` stream with every shape a diff must get right: adds,
/// edits, deletes, a mode change, file→directory and directory→file,
/// file→symlink, a submodule appearing and becoming a file, a two-parent merge
/// resolving a conflict (and a file against a directory), an octopus merge,
/// a tag, and names with spaces, quotes, tabs, control bytes, DEL, UTF-8 and
/// bytes that are not UTF-8.
enum GeneratedHistory {
    static let commitCount = 9

    /// How `git log --name-only` prints some of its names (core.quotePath on).
    static let quotedNames = [
        #""tab\there""#, #""caf\303\251""#, #""latin\351""#, "sp ace", #""q\"uote""#, #""back\\slash""#,
        #""ctl\001""#, #""del\177""#, #""new\nline""#,
    ]

    static var stream: String {
        blobs + root + mainEdits + mainTypeChanges + side + merge + octopus + "reset refs/tags/v1\nfrom :101\n\n"
    }

    private static func blob(_ mark: Int, _ text: String) -> String {
        "blob\nmark :\(mark)\ndata <<EOF\n\(text)\nEOF\n\n"
    }

    private static var blobs: String {
        blob(1, "one") + blob(2, "two") + blob(3, "three") + blob(5, "side") + blob(6, "resolved") + blob(7, "octopus")
            + "blob\nmark :4\ndata 5\na.txt\n"
    }

    private static func commit(_ mark: Int, on branch: String, from: Int?, merges: [Int] = [], _ commands: [String]) -> String {
        let parents = (from.map { ["from :\($0)"] } ?? []) + merges.map { "merge :\($0)" }
        return
            ([
                "commit refs/heads/\(branch)", "mark :\(mark)", "committer Test <test@example.com> \(1_700_000_000 + mark * 60) +0000",
                "data <<EOF", "commit \(mark)", "EOF",
            ] + parents + commands).joined(separator: "\n") + "\n\n"
    }

    private static var root: String {
        commit(
            100, on: "main", from: nil,
            [
                "M 100644 :1 a.txt", "M 100644 :1 a.c", "M 100644 :1 dir/sub/f.txt", "M 100755 :2 run.sh",
                #"M 100644 :1 "tab\there""#, #"M 100644 :1 "caf\303\251""#, #"M 100644 :1 "latin\351""#, "M 100644 :1 sp ace",
                #"M 100644 :1 "q\"uote""#, #"M 100644 :1 "back\\slash""#, #"M 100644 :1 "ctl\001""#, #"M 100644 :1 "del\177""#,
                "M 100644 :1 x", "M 100644 :1 x.c", "M 100644 :1 x-1", "M 100644 :1 y/z.txt", "M 100644 :1 l",
            ])
    }

    private static var mainEdits: String {
        commit(
            101, on: "main", from: 100,
            [
                "M 100644 :3 a.txt", "D run.sh", "D x", "M 100644 :1 x/inner", "D y", "M 100644 :2 y", "M 120000 :4 l",
                "M 100755 :1 a.c", "M 160000 0123456789abcdef0123456789abcdef01234567 sub", "M 100644 :2 dir/sub/deeper/g.txt",
                #"M 100644 :2 "new\nline""#, "M 100644 :1 dual",
            ])
    }

    private static var mainTypeChanges: String {
        commit(102, on: "main", from: 101, ["D sub", "M 100644 :1 sub", "D l", "M 100644 :1 l", "D dir/sub", "M 100644 :3 caf\u{e9}2"])
    }

    private static var side: String {
        commit(200, on: "side", from: 100, ["M 100644 :5 a.txt", "M 100644 :5 side.txt", "M 100644 :5 dual/f", "M 100644 :5 sp ace"])
    }

    /// Conflicting edits of `a.txt` resolved to a third text; `side.txt` taken
    /// from the side (equal to one parent, so not a path of the merge); `dual`
    /// a file on one side and a directory on the other, resolved to the
    /// directory with new content; `sp ace` deleted though both parents have it.
    private static var merge: String {
        commit(
            300, on: "main", from: 102, merges: [200],
            ["M 100644 :6 a.txt", "M 100644 :5 side.txt", "D dual", "M 100644 :6 dual/f", "D sp ace", "M 100644 :6 merge-only.txt"])
    }

    private static var octopus: String {
        commit(301, on: "o1", from: 300, ["M 100644 :1 o1.txt", "M 100644 :5 a.txt"])
            + commit(302, on: "o2", from: 300, ["M 100644 :1 o2.txt"])
            + commit(303, on: "o3", from: 300, ["M 100644 :1 o3.txt", "M 100755 :3 merge-only.txt"])
            + commit(
                304, on: "main", from: 301, merges: [302, 303],
                ["M 100644 :1 o2.txt", "M 100644 :1 o3.txt", "M 100644 :7 a.txt", "M 100644 :7 octopus.txt", "D x.c"])
    }
}
