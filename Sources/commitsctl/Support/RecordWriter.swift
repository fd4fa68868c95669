/// The machine-readable formats. Every command writes them through
/// `RecordWriter`, so json, ndjson and csv of one command always carry the
/// same fields in the same order with the same values.
enum RecordFormat: String {
    case json, ndjson, csv

    /// The machine format a `--format` value names, or nil for the formats
    /// written for people (`table`, `oneline`, `show`'s `text`). Every
    /// `--format` enum spells these three the same way.
    init?<Format: RawRepresentable<String>>(_ format: Format) {
        self.init(rawValue: format.rawValue)
    }
}

/// A report's fields, each named once beside how it is read from a row, in
/// output order: the order of json keys and of csv columns alike. The names
/// and their order are a documented interface (docs/QUERY.md).
struct RecordFields<Row>: Sendable {
    typealias Field = (name: String, value: @Sendable (Row) -> JSONValue)

    let fields: [Field]

    init(_ fields: [Field]) { self.fields = fields }

    var names: [String] { fields.map(\.name) }

    /// These fields, then `more`.
    func appending(_ more: [Field]) -> RecordFields { RecordFields(fields + more) }

    func record(of row: Row) -> [(String, JSONValue)] {
        fields.map { ($0.name, $0.value(row)) }
    }

    /// These fields, read from the part of a larger row that holds them
    /// (`show` prints `query`'s commit fields from its commit detail).
    func reading<Whole>(_ part: @escaping @Sendable (Whole) -> Row) -> RecordFields<Whole> {
        RecordFields<Whole>(fields.map { field in (field.name, { field.value(part($0)) }) })
    }

    static func + (first: RecordFields, second: RecordFields) -> RecordFields {
        RecordFields(first.fields + second.fields)
    }
}

/// Writes rows as json (one two-space indented array), ndjson (one compact
/// object a line) or csv (RFC 4180: a header row, then a row each). It
/// streams: `query --follow` appends rows as they arrive and never ends its
/// ndjson or csv.
struct RecordWriter<Row> {
    /// How `json` holds the rows: reports print an array; `show`, whose one
    /// commit is documented as one object, prints that object alone.
    enum JSONLayout { case array, singleObject }

    let format: RecordFormat
    let fields: RecordFields<Row>
    let output: OutputWriter
    let layout: JSONLayout
    private var written = 0

    init(_ format: RecordFormat, fields: RecordFields<Row>, output: OutputWriter, layout: JSONLayout = .array) {
        self.format = format
        self.fields = fields
        self.output = output
        self.layout = layout
    }

    /// The opening bracket or the header: written even when no row follows,
    /// so an empty result is still `[]` or a header.
    mutating func begin() {
        switch format {
        case .json: if layout == .array { output.write("[") }
        case .ndjson: break
        case .csv: output.write(CSV.row(fields.names))
        }
    }

    mutating func append(_ row: Row) {
        let record = fields.record(of: row)
        switch format {
        case .json where layout == .singleObject:
            precondition(written == 0, "a single-object json layout holds one row")
            output.line(JSONValue.object(record).pretty())
        case .json:
            output.write((written == 0 ? "\n  " : ",\n  ") + JSONValue.object(record).pretty(depth: 1))
        case .ndjson:
            output.line(JSONValue.object(record).compact)
        case .csv:
            output.write(CSV.row(record.map { CSV.text($0.1) }))
        }
        written += 1
    }

    mutating func end() {
        if format == .json && layout == .array { output.line(written == 0 ? "]" : "\n]") }
    }

    /// Writes `rows` whole: `begin`, every row, `end`.
    static func write(
        _ rows: some Sequence<Row>, fields: RecordFields<Row>, as format: RecordFormat, to output: OutputWriter,
        layout: JSONLayout = .array
    ) {
        var writer = RecordWriter(format, fields: fields, output: output, layout: layout)
        writer.begin()
        for row in rows { writer.append(row) }
        writer.end()
    }
}
