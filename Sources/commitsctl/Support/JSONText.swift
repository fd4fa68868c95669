import Foundation

/// A JSON value with object keys kept in the order written, so output is
/// byte-for-byte stable (the field order is part of docs/QUERY.md).
enum JSONValue {
    case string(String)
    case int(Int)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    /// Compact JSON (one line: no raw newlines survive escaping).
    var compact: String {
        var text = ""
        write(to: &text, indent: nil, depth: 0)
        return text
    }

    /// Two-space indented JSON.
    func pretty(depth: Int = 0) -> String {
        var text = ""
        write(to: &text, indent: "  ", depth: depth)
        return text
    }

    private func write(to out: inout String, indent: String?, depth: Int) {
        switch self {
        case .string(let value): Self.writeString(value, to: &out)
        case .int(let value): out += String(value)
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        case .array(let values):
            guard !values.isEmpty else { out += "[]"; return }
            // Arrays of scalars stay on one line even when pretty.
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += indent == nil ? "," : ", " }
                value.write(to: &out, indent: indent, depth: depth + 1)
            }
            out += "]"
        case .object(let fields):
            guard !fields.isEmpty else { out += "{}"; return }
            out += "{"
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out += "," }
                if let indent { out += "\n" + String(repeating: indent, count: depth + 1) }
                Self.writeString(key, to: &out)
                out += indent == nil ? ":" : ": "
                value.write(to: &out, indent: indent, depth: depth + 1)
            }
            if let indent { out += "\n" + String(repeating: indent, count: depth) }
            out += "}"
        }
    }

    private static func writeString(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// RFC 4180: fields with a comma, quote or line break are quoted, quotes doubled; CRLF line ends.
enum CSV {
    static func row(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    static func field(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The CSV text of a flat JSON value: arrays joined by spaces, null empty.
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return ""
        case .array(let values): return values.map(text).joined(separator: " ")
        case .object: return value.compact
        }
    }
}
