import Foundation

/// Commits saved from the API for an import: the output of the GitHub CLI's
/// paginated `api repos/O/R/commits` (JSON arrays one after another) or
/// NDJSON (one commit object per line), or any mix of the two. Each value is
/// decoded by `PayloadDecoder`, exactly as a synced page is.
public enum SavedResponses {
    public struct DecodeError: Error, Sendable, CustomStringConvertible {
        public var source: String
        public var line: Int
        public var problem: String
        public var description: String { "\(source):\(line): \(problem)" }
    }

    /// Decodes every commit in `bytes`, in order. `source` names the input in errors.
    public static func decode(_ bytes: [UInt8], source: String) throws -> [Commit] {
        var commits: [Commit] = []
        let decoder = PayloadDecoder()
        for value in try values(in: bytes, source: source) {
            let slice = Array(bytes[value.range])
            do {
                if bytes[value.range.lowerBound] == UInt8(ascii: "[") {
                    commits += try decoder.decodeCommits(slice)
                } else {
                    commits.append(Commit(try decoder.decode(CommitPayload.self, from: slice)))
                }
            } catch {
                struct ErrorBody: Decodable { var message: String; var sha: String? }
                if let body = try? decoder.decode(ErrorBody.self, from: slice), body.sha == nil {
                    throw DecodeError(
                        source: source, line: value.line,
                        problem: "this is a GitHub error response, not commits: \(body.message)")
                }
                var detail = describeDecodingError(error)
                if detail.hasSuffix(" at ") { detail = String(detail.dropLast(4)) }
                throw DecodeError(
                    source: source, line: value.line,
                    problem:
                        "not a list-commits element (\(detail)); expected GET /repos/OWNER/REPO/commits elements, as paginated API output saves them"
                )
            }
        }
        return commits
    }

    struct Value {
        var range: Range<Int>
        var line: Int
    }

    /// Where each top-level JSON array or object starts and ends. Only finds
    /// boundaries (brackets outside strings); `JSONDecoder` reads the values.
    static func values(in bytes: [UInt8], source: String) throws -> [Value] {
        var values: [Value] = []
        var line = 1
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0  // a UTF-8 byte order mark
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                if byte == 0x0A { line += 1 }
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") else {
                throw DecodeError(
                    source: source, line: line,
                    problem: "expected a JSON array of commits or a commit object, found '\(Character(Unicode.Scalar(byte)))'")
            }
            let start = index
            let startLine = line
            var depth = 0
            var inString = false
            var escaped = false
            var end: Int?
            while index < bytes.count {
                let c = bytes[index]
                if c == UInt8(ascii: "\n") { line += 1 }
                if inString {
                    if escaped {
                        escaped = false
                    } else if c == UInt8(ascii: "\\") {
                        escaped = true
                    } else if c == UInt8(ascii: "\"") {
                        inString = false
                    }
                } else if c == UInt8(ascii: "\"") {
                    inString = true
                } else if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
                    depth += 1
                } else if c == UInt8(ascii: "]") || c == UInt8(ascii: "}") {
                    depth -= 1
                    if depth == 0 {
                        end = index + 1
                        index += 1
                        break
                    }
                }
                index += 1
            }
            guard let end else {
                throw DecodeError(source: source, line: startLine, problem: "the JSON value starting here is truncated")
            }
            values.append(Value(range: start..<end, line: startLine))
        }
        return values
    }
}
