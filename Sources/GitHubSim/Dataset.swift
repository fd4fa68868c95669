// Real commit histories stored as JSON Lines (see shared/datasets/README.md).

import Foundation

/// One line of a dataset file: a commit as git stores it.
public struct DatasetCommit: Sendable, Codable, Equatable {
    public var sha: String
    public var parents: [String]
    public var tree: String
    public var author: DatasetPerson
    public var committer: DatasetPerson
    /// Git's raw message; it may end with a newline.
    public var message: String

    public init(
        sha: String, parents: [String], tree: String, author: DatasetPerson, committer: DatasetPerson, message: String
    ) {
        self.sha = sha
        self.parents = parents
        self.tree = tree
        self.author = author
        self.committer = committer
        self.message = message
    }
}

public struct DatasetPerson: Sendable, Codable, Equatable {
    public var name: String
    public var email: String
    /// ISO 8601 with the committer's offset, e.g. `2026-08-21T21:58:33-04:00`.
    public var date: String

    public init(name: String, email: String, date: String) {
        self.name = name
        self.email = email
        self.date = date
    }
}

/// A dataset file could not be used; the description names the file (and line).
public struct DatasetError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var line: Int?
    public var reason: String

    public var description: String {
        if let line { return "\(path):\(line): \(reason)" }
        return "\(path): \(reason)"
    }
}

public enum Dataset {
    /// Reads a `.jsonl` or gzip'd `.jsonl.gz` file (detected by content), keeping the file's order
    /// (newest first).
    public static func load(path: String) throws -> [DatasetCommit] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DatasetError(path: path, line: nil, reason: "cannot read the file (missing or unreadable)")
        }
        var bytes = [UInt8](data)
        if Gzip.isGzip(bytes) {
            do {
                bytes = try Gzip.decompress(bytes)
            } catch {
                throw DatasetError(path: path, line: nil, reason: "cannot decompress: \(error)")
            }
        }
        let decoder = JSONDecoder()
        var commits = [DatasetCommit]()
        var lineNumber = 0
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
            do {
                commits.append(try decoder.decode(DatasetCommit.self, from: Data(line)))
            } catch {
                throw DatasetError(path: path, line: lineNumber, reason: "not a commit object: \(describe(error))")
            }
        }
        guard !commits.isEmpty else { throw DatasetError(path: path, line: nil, reason: "no commits in the file") }
        return commits
    }

    /// DecodingError's own description is a multi-line dump; one short phrase is enough to fix a file.
    private static func describe(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            let parent = path(context)
            return "missing field \"\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)\""
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "field \"\(path(context))\" has the wrong type"
        case .dataCorrupted?:
            return "invalid JSON"
        default:
            return "\(error)"
        }
    }
}
