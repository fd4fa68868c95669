import Foundation

/// A decoded JSON value that keeps booleans, integers, strings and null
/// apart (JSONSerialization folds booleans and numbers into NSNumber), so
/// two formats' values can be compared exactly.
indirect enum ParsedJSON: Decodable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([ParsedJSON])
    case object([String: ParsedJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int.self) {
            self = .int(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let values = try? container.decode([ParsedJSON].self) {
            self = .array(values)
        } else {
            self = .object(try container.decode([String: ParsedJSON].self))
        }
    }

    static func parse(_ text: String) throws -> ParsedJSON {
        try JSONDecoder().decode(ParsedJSON.self, from: Data(text.utf8))
    }

    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return String(flag)
        case .int(let number): return String(number)
        case .string(let text): return text.debugDescription
        case .array(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .object(let fields):
            return "{" + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }

    /// Whether a csv cell holds this value as docs/QUERY.md says csv writes
    /// it: text as is, numbers and booleans spelled as in JSON, null empty,
    /// arrays joined by single spaces, objects as compact JSON.
    func isWritten(asCSV cell: String) -> Bool {
        switch self {
        case .null: return cell == ""
        case .bool(let flag): return cell == String(flag)
        case .int(let number): return cell == String(number)
        case .string(let text): return cell == text
        case .object: return (try? ParsedJSON.parse(cell)) == self
        case .array(let values):
            guard values.contains(where: { if case .object = $0 { true } else { false } }) else {
                return cell == values.map(\.scalarCSVText).joined(separator: " ")
            }
            // Compact objects joined by spaces: `{...} {...}` reads back as one JSON array once commas join them.
            return (try? ParsedJSON.parse("[" + cell.replacingOccurrences(of: "} {", with: "},{") + "]")) == self
        }
    }

    private var scalarCSVText: String {
        switch self {
        case .null: return ""
        case .bool(let flag): return String(flag)
        case .int(let number): return String(number)
        case .string(let text): return text
        case .array, .object: return description
        }
    }
}

/// RFC 4180 as docs/QUERY.md promises it: CRLF row ends; a quoted field may
/// hold commas, doubled quotes and line breaks. Read by Unicode scalar,
/// since Swift reads "\r\n" as one Character.
enum CSVReading {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    static func rows(_ text: String) throws -> [[String]] {
        let scalars = Array(text.unicodeScalars)
        var rows: [[String]] = []
        var row: [String] = []
        var field = String.UnicodeScalarView()
        var quoted = false
        var wasQuoted = false
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            if quoted {
                if scalar == "\"" && next == "\"" {
                    field.append("\"")
                    index += 1
                } else if scalar == "\"" {
                    quoted = false
                } else {
                    field.append(scalar)
                }
            } else if scalar == "\"" && field.isEmpty && !wasQuoted {
                quoted = true
                wasQuoted = true
            } else if scalar == "," {
                row.append(String(field))
                field = String.UnicodeScalarView()
                wasQuoted = false
            } else if scalar == "\r" && next == "\n" {
                row.append(String(field))
                rows.append(row)
                row = []
                field = String.UnicodeScalarView()
                wasQuoted = false
                index += 1
            } else if scalar == "\"" || scalar == "\r" || scalar == "\n" {
                throw Malformed(description: "unquoted \(scalar.escaped(asASCII: true)) at scalar \(index)")
            } else {
                field.append(scalar)
            }
            index += 1
        }
        guard !quoted, row.isEmpty, field.isEmpty else {
            throw Malformed(description: "the last row does not end in CRLF")
        }
        return rows
    }
}
