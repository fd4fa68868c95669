import CPostgreSQL

/// An array bound to a statement parameter in PostgreSQL's binary format (what
/// the server's `array_recv` reads): each element goes as its length and bytes,
/// nothing quoted on this side or scanned for quotes on the server's. A page's
/// columns go to the server this way, one array a column, in one statement.
public enum BinaryArray: Sendable, Equatable {
    /// For a `text[]` parameter; `nil` elements are NULL.
    case text([String?])
    /// For an `integer[]` (int4) parameter.
    case integer([Int32])
    /// For an `integer[]` parameter whose `nil` elements are NULL.
    case nullableInteger([Int32?])
    /// For a `bytea[]` parameter, each element its bytes as they are; `nil` elements are NULL.
    case bytea([[UInt8]?])

    /// Appends the array's bytes to `bytes`: dimensions (one, or none when empty),
    /// whether any element is NULL, the element type, the length and lower bound
    /// (1), then each element's length (-1 for NULL) and bytes, integers big-endian.
    func append(to bytes: inout [UInt8]) {
        switch self {
        case .text(let elements):
            Self.appendHeader(count: elements.count, hasNull: elements.contains(nil), elementType: Self.textOID, to: &bytes)
            for element in elements {
                guard var element else {
                    Self.append(Int32(-1), to: &bytes)
                    continue
                }
                element.withUTF8 { utf8 in
                    Self.append(Int32(utf8.count), to: &bytes)
                    bytes.append(contentsOf: utf8)
                }
            }
        case .integer(let elements):
            Self.appendHeader(count: elements.count, hasNull: false, elementType: Self.int4OID, to: &bytes)
            for element in elements {
                Self.append(Int32(4), to: &bytes)
                Self.append(element, to: &bytes)
            }
        case .nullableInteger(let elements):
            Self.appendHeader(count: elements.count, hasNull: elements.contains(nil), elementType: Self.int4OID, to: &bytes)
            for element in elements {
                guard let element else {
                    Self.append(Int32(-1), to: &bytes)
                    continue
                }
                Self.append(Int32(4), to: &bytes)
                Self.append(element, to: &bytes)
            }
        case .bytea(let elements):
            Self.appendHeader(count: elements.count, hasNull: elements.contains(nil), elementType: Self.byteaOID, to: &bytes)
            for element in elements {
                guard let element else {
                    Self.append(Int32(-1), to: &bytes)
                    continue
                }
                Self.append(Int32(element.count), to: &bytes)
                bytes.append(contentsOf: element)
            }
        }
    }

    /// How many bytes `append(to:)` writes, to size the buffer once.
    var encodedCount: Int {
        switch self {
        case .text(let elements): 20 + elements.reduce(0) { $0 + 4 + ($1?.utf8.count ?? 0) }
        case .integer(let elements): 20 + 8 * elements.count
        case .nullableInteger(let elements): 20 + 8 * elements.count
        case .bytea(let elements): 20 + elements.reduce(0) { $0 + 4 + ($1?.count ?? 0) }
        }
    }

    /// pg_type's ids for `text`, `int4` and `bytea`: the server checks that the
    /// element type sent is the one the parameter's type has.
    static let textOID: UInt32 = 25
    static let int4OID: UInt32 = 23
    static let byteaOID: UInt32 = 17

    private static func appendHeader(count: Int, hasNull: Bool, elementType: UInt32, to bytes: inout [UInt8]) {
        append(Int32(count == 0 ? 0 : 1), to: &bytes)
        append(Int32(hasNull ? 1 : 0), to: &bytes)
        append(elementType, to: &bytes)
        guard count > 0 else { return }
        append(Int32(count), to: &bytes)
        append(Int32(1), to: &bytes)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}

extension PostgreSQLConnection {
    /// Runs one statement as `executePrepared` does, its parameters `$1`, `$2` …
    /// the `arrays` in binary format; the statement names each one's type
    /// (`$1::text[]`), which must be the array's.
    @discardableResult
    public func executePrepared(_ sql: String, arrays: [BinaryArray]) throws -> QueryResult {
        let name = try preparedName(sql)
        // Every array into one buffer, each parameter a range of it.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(arrays.reduce(0) { $0 + $1.encodedCount })
        var ranges: [Range<Int>] = []
        for array in arrays {
            let start = buffer.count
            array.append(to: &buffer)
            ranges.append(start..<buffer.count)
        }
        // The server takes no parameter over 1 GB (its largest allocation); refused here,
        // with the size, rather than sent.
        if let oversized = ranges.first(where: { $0.count >= Self.largestParameter }) {
            throw PostgreSQLError(
                kind: .statement,
                message: "an array parameter of \(oversized.count) bytes is over the 1 GB PostgreSQL accepts", sql: sql)
        }
        let result = withBinaryParameters(in: buffer, ranges) { count, values, lengths in
            cpq_exec_prepared_binary(rawConnection, name, count, values, lengths)
        }
        return try checked(result, sql: sql)
    }

    /// PostgreSQL's MaxAllocSize: 1 GB less one byte is the most a parameter may hold.
    static let largestParameter = 1 << 30
}

/// The `ranges` of `buffer` as the pointer and length arrays libpq takes, for the duration of `body`.
private func withBinaryParameters<T>(
    in buffer: [UInt8], _ ranges: [Range<Int>],
    _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?) -> T
) -> T {
    let lengths = ranges.map { Int32($0.count) }
    return buffer.withUnsafeBufferPointer { bytes in
        bytes.withMemoryRebound(to: CChar.self) { characters in
            let values: [UnsafePointer<CChar>?] = ranges.map { range in
                characters.baseAddress.map { UnsafePointer($0 + range.lowerBound) }
            }
            return values.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { body(Int32(ranges.count), values.baseAddress, $0.baseAddress) }
            }
        }
    }
}
