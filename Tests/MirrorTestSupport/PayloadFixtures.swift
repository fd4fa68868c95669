import Foundation

/// Builds list-commits elements as GitHub sends them, for decoder and store tests.
public enum PayloadFixtures {
    public static func element(
        sha: String, message: String = "Subject", authorName: String = "Ada Lovelace",
        authorEmail: String = "ada@example.com", login: String? = "ada",
        date: String = "2024-01-02T03:04:05Z", parents: [String] = [],
        authorField: String? = nil
    ) -> String {
        let user = authorField ?? (login.map { #"{"login":"\#($0)","id":1,"type":"User","site_admin":false}"# } ?? "null")
        let escapedMessage = String(data: try! JSONSerialization.data(withJSONObject: [message]), encoding: .utf8)!.dropFirst().dropLast()
        let escapedName = String(data: try! JSONSerialization.data(withJSONObject: [authorName]), encoding: .utf8)!.dropFirst().dropLast()
        let parentList = parents.map { #"{"sha":"\#($0)","url":"u","html_url":"h"}"# }.joined(separator: ",")
        return """
            {"sha":"\(sha)","node_id":"C_x","commit":{"author":{"name":\(escapedName),"email":"\(authorEmail)","date":"\(date)"},\
            "committer":{"name":\(escapedName),"email":"\(authorEmail)","date":"\(date)"},"message":\(escapedMessage),\
            "tree":{"sha":"\(String(repeating: "e", count: 40))","url":"t"},"url":"u","comment_count":0,\
            "verification":{"verified":false,"reason":"unsigned","signature":null,"payload":null,"verified_at":null}},\
            "url":"u","html_url":"https://github.com/o/r/commit/\(sha)","comments_url":"c",\
            "author":\(user),"committer":\(user),"parents":[\(parentList)]}
            """
    }

    public static func page(_ elements: [String]) -> [UInt8] {
        Array("[\(elements.joined(separator: ","))]".utf8)
    }

    public static func sha(_ n: Int) -> String {
        let hex = String(n, radix: 16)
        return String(repeating: "0", count: 40 - hex.count) + hex
    }
}
