// Renders list-commits elements (and their SimpleUsers) as compact JSON, in GitHub's field order
// (LIST-COMMITS.md §2). This is the simulator's hot path: constant text is written as static
// strings and nothing is built as an intermediate String.

import NIOCore

struct ElementRenderer: Sendable {
    /// `http://127.0.0.1:43521`
    let apiBase: String
    /// `{apiBase}/repos/{owner}/{name}`
    let apiRepo: String
    /// `https://github.com/{owner}/{name}`
    let htmlRepo: String
    let repoID: Int

    init(baseURL: String, owner: String, name: String, repoID: Int) {
        apiBase = baseURL
        apiRepo = "\(baseURL)/repos/\(owner)/\(name)"
        htmlRepo = "https://github.com/\(owner)/\(name)"
        self.repoID = repoID
    }

    /// Identifies everything besides the commit that shows up in an element.
    var cacheKey: String { apiRepo }

    /// One element. `detailed` adds the single-commit endpoint's `stats` and `files`.
    func writeElement(_ c: CommitRecord, into out: inout ByteBuffer, detailed: Bool = false) {
        out.writeStaticString("{\"sha\":\"")
        out.writeString(c.sha)
        out.writeStaticString("\",\"node_id\":\"")
        writeCommitNodeID(sha: c.sha, into: &out)
        out.writeStaticString("\",\"commit\":{\"author\":")
        writeGitPerson(c.author, into: &out)
        out.writeStaticString(",\"committer\":")
        writeGitPerson(c.committer, into: &out)
        out.writeStaticString(",\"message\":")
        out.writeJSONString(c.message)
        out.writeStaticString(",\"tree\":{\"sha\":\"")
        out.writeString(c.tree)
        out.writeStaticString("\",\"url\":\"")
        out.writeString(apiRepo)
        out.writeStaticString("/git/trees/")
        out.writeString(c.tree)
        out.writeStaticString("\"},\"url\":\"")
        out.writeString(apiRepo)
        out.writeStaticString("/git/commits/")
        out.writeString(c.sha)
        out.writeStaticString(
            "\",\"comment_count\":0,\"verification\":{\"verified\":false,\"reason\":\"unsigned\",\"signature\":null,\"payload\":null,\"verified_at\":null}},\"url\":\""
        )
        writeCommitURL(c.sha, into: &out)
        out.writeStaticString("\",\"html_url\":\"")
        writeHTMLCommitURL(c.sha, into: &out)
        out.writeStaticString("\",\"comments_url\":\"")
        writeCommitURL(c.sha, into: &out)
        out.writeStaticString("/comments\",\"author\":")
        writeUser(c.author.user, into: &out)
        out.writeStaticString(",\"committer\":")
        writeUser(c.committer.user, into: &out)
        out.writeStaticString(",\"parents\":[")
        for (k, parent) in c.parents.enumerated() {
            if k > 0 { out.writeStaticString(",") }
            out.writeStaticString("{\"sha\":\"")
            out.writeString(parent)
            out.writeStaticString("\",\"url\":\"")
            writeCommitURL(parent, into: &out)
            out.writeStaticString("\",\"html_url\":\"")
            writeHTMLCommitURL(parent, into: &out)
            out.writeStaticString("\"}")
        }
        out.writeStaticString("]")
        if detailed {
            out.writeStaticString(",\"stats\":{\"total\":0,\"additions\":0,\"deletions\":0},\"files\":[]")
        }
        out.writeStaticString("}")
    }

    /// The SimpleUser fields that are the user's API URL with a path after it, in GitHub's order.
    private static let userURLFields: [(key: StaticString, path: StaticString)] = [
        ("\",\"followers_url\":\"", "/followers"), ("\",\"following_url\":\"", "/following{/other_user}"),
        ("\",\"gists_url\":\"", "/gists{/gist_id}"), ("\",\"starred_url\":\"", "/starred{/owner}{/repo}"),
        ("\",\"subscriptions_url\":\"", "/subscriptions"), ("\",\"organizations_url\":\"", "/orgs"),
        ("\",\"repos_url\":\"", "/repos"), ("\",\"events_url\":\"", "/events{/privacy}"),
        ("\",\"received_events_url\":\"", "/received_events"),
    ]

    /// A SimpleUser with the 19 fields GitHub sends, or `null`.
    func writeUser(_ user: SimUser?, into out: inout ByteBuffer) {
        guard let user else {
            out.writeStaticString("null")
            return
        }
        let login = user.login  // sanitised to [A-Za-z0-9-], so it needs no escaping
        out.writeStaticString("{\"login\":\"")
        out.writeString(login)
        out.writeStaticString("\",\"id\":")
        out.writeString(user.idText)
        out.writeStaticString(",\"node_id\":\"")
        out.writeString(user.nodeID)
        out.writeStaticString("\",\"avatar_url\":\"https://avatars.githubusercontent.com/u/")
        out.writeString(user.idText)
        out.writeStaticString("?v=4\",\"gravatar_id\":\"\",\"url\":\"")
        writeUserURL(login, into: &out)
        out.writeStaticString("\",\"html_url\":\"https://github.com/")
        out.writeString(login)
        for (key, path) in Self.userURLFields {
            out.writeStaticString(key)
            writeUserURL(login, into: &out)
            out.writeStaticString(path)
        }
        out.writeStaticString("\",\"type\":\"User\",\"user_view_type\":\"public\",\"site_admin\":false}")
    }

    private func writeGitPerson(_ person: PersonRecord, into out: inout ByteBuffer) {
        out.writeStaticString("{\"name\":")
        out.writeJSONString(person.name)
        out.writeStaticString(",\"email\":")
        out.writeJSONString(person.email)
        out.writeStaticString(",\"date\":\"")
        out.writeString(person.date)
        out.writeStaticString("\"}")
    }

    private func writeCommitURL(_ sha: String, into out: inout ByteBuffer) {
        out.writeString(apiRepo)
        out.writeStaticString("/commits/")
        out.writeString(sha)
    }

    private func writeHTMLCommitURL(_ sha: String, into out: inout ByteBuffer) {
        out.writeString(htmlRepo)
        out.writeStaticString("/commit/")
        out.writeString(sha)
    }

    private func writeUserURL(_ login: String, into out: inout ByteBuffer) {
        out.writeString(apiBase)
        out.writeStaticString("/users/")
        out.writeString(login)
    }

    /// GitHub's next-generation commit id: "C_" + base64(msgpack [0, repository id, sha]).
    private func writeCommitNodeID(sha: String, into out: inout ByteBuffer) {
        out.writeStaticString("C_")
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { packed in
            var n = 0
            func put(_ byte: UInt8) {
                packed[n] = byte
                n += 1
            }
            put(0x93)  // fixarray of 3
            put(0x00)
            let id = UInt64(max(0, repoID))
            switch id {
            case 0..<0x80:
                put(UInt8(id))
            case 0x80..<0x100:
                put(0xCC); put(UInt8(id))
            case 0x100..<0x10000:
                put(0xCD); put(UInt8(id >> 8)); put(UInt8(id & 0xFF))
            default:
                put(0xCE)
                for shift in [24, 16, 8, 0] as [UInt64] { put(UInt8(id >> shift & 0xFF)) }
            }
            put(0xDA); put(0x00); put(40)  // str16, as GitHub writes it
            for byte in sha.utf8.prefix(40) { put(byte) }
            var encoded = [UInt8]()
            encoded.reserveCapacity(88)
            Base64.encode(UnsafeBufferPointer(rebasing: packed[0..<n]), into: &encoded)
            out.writeBytes(encoded)
        }
    }
}
