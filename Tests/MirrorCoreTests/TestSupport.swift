import MirrorTestSupport
import Foundation
import Logging
@testable import MirrorCore
@testable import MirrorSQLite

/// Paths and fixtures shared by the MirrorCore tests.
enum TestSupport {
    static let swiftEvolutionDataset = PackagePaths.swiftEvolutionDataset
    static let examples = PackagePaths.examples
    static var hasSharedExamples: Bool { PackagePaths.hasSharedExamples }
    static var hasDataset: Bool { PackagePaths.hasDataset }

    static let quietLogger: Logger = {
        var logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        logger.logLevel = .critical
        return logger
    }()

    /// The JSON body of a recorded exchange in ../shared/github-api/examples.
    static func recordedBody(_ file: String) throws -> [UInt8] {
        let data = try Data(contentsOf: examples.appendingPathComponent(file))
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let response = object["response"] as! [String: Any]
        return Array(try JSONSerialization.data(withJSONObject: response["body"]!))
    }

    static func recordedResponseHeaders(_ file: String) throws -> [String: String] {
        let data = try Data(contentsOf: examples.appendingPathComponent(file))
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        return (object["response"] as! [String: Any])["headers"] as! [String: String]
    }
}

/// Builds list-commits elements as GitHub sends them, for decoder and store tests.
enum PayloadFixtures {
    static func element(
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

    static func page(_ elements: [String]) -> [UInt8] {
        Array("[\(elements.joined(separator: ","))]".utf8)
    }

    static func sha(_ n: Int) -> String {
        let hex = String(n, radix: 16)
        return String(repeating: "0", count: 40 - hex.count) + hex
    }
}

/// The store opened as its writer or as a reader, for tests that must hold for both.
enum StoreSide: Sendable, CaseIterable {
    case writer, reader

    func open(_ path: String) throws {
        switch self {
        case .writer: _ = try MirrorStore(path: path)
        case .reader: _ = try MirrorReader(path: path)
        }
    }
}
