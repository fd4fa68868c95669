/// A text array as one parameter (`$1::text[]`): PostgreSQL's array literal, every
/// element quoted, so no element can end the array or start another, whatever it holds.
public struct TextArray: PostgreSQLBindable {
    public var elements: [String]

    public init(_ elements: some Sequence<String>) {
        self.elements = Array(elements)
    }

    public var postgreSQLText: String? {
        var text = "{"
        for (index, element) in elements.enumerated() {
            if index > 0 { text += "," }
            text += "\""
            for character in element.unicodeScalars {
                if character == "\\" || character == "\"" { text += "\\" }
                text.unicodeScalars.append(character)
            }
            text += "\""
        }
        return text + "}"
    }
}

/// An array of 64-bit integers as one parameter (`$1::bigint[]`).
public struct BigIntArray: PostgreSQLBindable {
    public var elements: [Int64]

    public init(_ elements: some Sequence<Int64>) {
        self.elements = Array(elements)
    }

    public var postgreSQLText: String? { "{" + elements.map(String.init).joined(separator: ",") + "}" }
}
