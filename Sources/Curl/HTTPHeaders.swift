/// Response or request headers in arrival order, with case-insensitive lookup
/// (HTTP field names are case-insensitive; GitHub mixes `ETag` and `etag`).
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByArrayLiteral {
    public typealias Element = (name: String, value: String)

    private var fields: [Element]

    public init(_ fields: [Element] = []) {
        self.fields = fields
    }

    public init(arrayLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of the named field, or `nil`.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of the named field, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every field with this name.
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Element]> {
        fields.makeIterator()
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
