import Foundation
import Yams

// Reading one scalar of the configuration (a bool, a duration, a path, a string) and
// phrasing what is wrong with it: the line, the key, the problem, what was expected.
extension ConfigurationLoader {
    func bool(_ node: Node, key: String) throws -> Bool {
        let expected = "true or false"
        guard let text = try scalarText(node, key: key, expected: expected) else {
            throw error(at: node, key: key, problem: "has no value", expected: expected)
        }
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw error(at: node, key: key, problem: "'\(Self.excerpt(text))' is not true or false", expected: expected)
        }
    }

    /// Between a second and ten minutes: how long a request may receive nothing.
    func requestTimeout(_ node: Node, key: String) throws -> Duration {
        let timeout = try duration(node, key: key)
        guard timeout >= .seconds(1), timeout <= .seconds(600) else {
            throw error(
                at: node, key: key, problem: "\(DurationText.format(timeout)) is not between 1s and 10m",
                expected: "a duration from 1s to 10m, e.g. 30s (the default)")
        }
        return timeout
    }

    func duration(_ node: Node, key: String) throws -> Duration {
        guard let text = try scalarText(node, key: key, expected: DurationText.expectedForm) else {
            throw error(at: node, key: key, problem: "has no value", expected: DurationText.expectedForm)
        }
        guard let duration = DurationText.parse(text) else {
            throw error(at: node, key: key, problem: "'\(Self.excerpt(text))' is not a duration", expected: DurationText.expectedForm)
        }
        // Every interval is one between polls: none may leave a repository unpolled for more than a day.
        let longest = MirrorConfiguration.longestMaximumInterval
        guard duration <= longest else {
            throw error(
                at: node, key: key, problem: "\(Self.excerpt(text).trimmingCharacters(in: .whitespaces)) is longer than a day",
                expected: "at most \(DurationText.format(longest)), so a dormant repository is still polled daily")
        }
        return duration
    }

    func path(_ node: Node, key: String, expected: String) throws -> String {
        let text = try string(node, key: key, expected: expected)
        guard !text.hasPrefix("/"), let directory else { return text }
        return URL(fileURLWithPath: directory).appendingPathComponent(text).standardizedFileURL.path
    }

    /// A non-empty scalar, as text.
    func string(_ node: Node, key: String, expected: String) throws -> String {
        guard let text = try scalarText(node, key: key, expected: expected), !text.isEmpty else {
            throw error(at: node, key: key, problem: "has no value", expected: expected)
        }
        return text
    }

    /// The scalar's text; `nil` for an explicit null (`key:` or `key: ~`).
    func scalarText(_ node: Node, key: String, expected: String) throws -> String? {
        guard case .scalar(let scalar) = node else {
            throw error(at: node, key: key, problem: "is \(kind(of: node))", expected: expected)
        }
        if node.tag.rawValue == Tag.Name.null.rawValue { return nil }
        return scalar.string.trimmingCharacters(in: .whitespaces)
    }

    func kind(of node: Node) -> String {
        switch node {
        case .scalar:
            return node.tag.rawValue == Tag.Name.null.rawValue ? "empty" : "a single value ('\(Self.excerpt(node.scalar?.string ?? ""))')"
        case .mapping: return "a mapping (key: value pairs)"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    func error(at node: Node, key: String?, problem: String, expected: String?) -> ConfigurationError {
        ConfigurationError(file: file, line: node.mark?.line, key: key, problem: problem, expected: expected)
    }

    /// Each setting of `mapping` with the `Key` it names, so that every mapping of the file
    /// refuses an unknown key alike: naming it after `path` and listing the keys there are.
    func forEachSetting<Key: RawRepresentable<String> & CaseIterable>(
        of mapping: Node.Mapping, path: String, keys: Key.Type, _ body: (_ key: Key, _ keyNode: Node, _ value: Node) throws -> Void
    ) throws {
        for (keyNode, value) in mapping {
            let keyText = Self.excerpt(keyNode.scalar?.string ?? kind(of: keyNode))
            guard let key = Key(rawValue: keyText) else {
                throw error(
                    at: keyNode, key: path + keyText, problem: "unknown key",
                    expected: "one of \(Key.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            try body(key, keyNode, value)
        }
    }

    /// At most `limit` characters of a value from the file, on one line: an
    /// error message quotes a node, never dumps it.
    static func excerpt(_ text: String, limit: Int = 80) -> String {
        var result = ""
        for character in text {
            var piece = String(character)
            if character.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                piece = character.unicodeScalars.map { "\\u{" + String($0.value, radix: 16) + "}" }.joined()
            }
            guard result.count + piece.count < limit else { return result + "…" }
            result += piece
        }
        return result
    }

    /// A YAML syntax error as one line with its position.
    static func describe(_ error: YamlError, file: String) -> ConfigurationError {
        let expected = "valid YAML like config/commits-mirror.example.yaml"
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return ConfigurationError(
                file: file, line: mark.line, column: mark.column,
                problem: "not valid YAML: \(problem)", expected: expected)
        case .reader(let problem, _, _, _):
            return ConfigurationError(file: file, problem: "not valid YAML: \(problem)", expected: expected)
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ConfigurationError(
                file: file, line: context.mark.line,
                key: excerpt(duplicates.sorted().joined(separator: ", ")),
                problem: "appears more than once in the same mapping", expected: "each key once")
        default:
            return ConfigurationError(
                file: file, problem: "not valid YAML: \(excerpt(String("\(error)".split(separator: "\n").first ?? "")))",
                expected: expected)
        }
    }
}
