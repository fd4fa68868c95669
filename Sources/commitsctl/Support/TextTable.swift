import Foundation
import MirrorCore

/// Plain-text columns for people: no colour and no escape codes, ever; text
/// from the store is sanitized so a commit message cannot drive the terminal.
struct TextTable {
    struct Column {
        var title: String
        /// Right-aligned (numbers).
        var numeric = false
        /// The column that shrinks (with "…") when the table is too wide.
        var flexible = false
        /// It never shrinks below this.
        var minimumWidth = 8
        /// A secondary column left out, lowest first, when the table cannot fit
        /// even with the flexible columns at their minimum (nil: always shown).
        var dropOrder: Int? = nil
        /// A flexible column holding a name: secondary columns are left out
        /// before it is cut (a message column is cut first).
        var isName = false
    }

    var columns: [Column]
    var rows: [[String]] = []

    init(_ columns: [Column]) { self.columns = columns }

    mutating func append(_ row: [String]) {
        rows.append(row.map(TextCleaning.singleLine))
    }

    /// The table's lines, fitted to `width` columns when given.
    func render(width: Int?) -> [String] {
        let gap = 2
        let natural = columns.indices.map { index in
            rows.reduce(DisplayWidth.of(columns[index].title)) { max($0, DisplayWidth.of($1[index])) }
        }
        var shown = Array(columns.indices)
        if let width {
            // Leave out secondary columns until the rest fits with the messages at their minimum.
            func minimum(_ index: Int) -> Int {
                let column = columns[index]
                guard column.flexible, !column.isName else { return natural[index] }
                return min(natural[index], max(column.minimumWidth, DisplayWidth.of(column.title)))
            }
            let droppable = columns.indices.filter { columns[$0].dropOrder != nil }.sorted {
                columns[$0].dropOrder! < columns[$1].dropOrder!
            }
            for index in droppable where shown.map(minimum).reduce(0, +) + gap * (shown.count - 1) > width {
                shown.removeAll { $0 == index }
            }
        }
        return TextTable(shown.map { columns[$0] }, rows: rows.map { row in shown.map { row[$0] } })
            .fitted(width: width, widths: shown.map { natural[$0] }, gap: gap)
    }

    private init(_ columns: [Column], rows: [[String]]) {
        self.columns = columns
        self.rows = rows
    }

    private func fitted(width: Int?, widths natural: [Int], gap: Int) -> [String] {
        var widths = natural
        if let width {
            // Shrink the flexible columns (last first) until the table fits.
            var excess = widths.reduce(0, +) + gap * (columns.count - 1) - width
            for index in columns.indices.reversed() where excess > 0 && columns[index].flexible {
                let floor = max(columns[index].minimumWidth, DisplayWidth.of(columns[index].title))
                let cut = min(excess, max(0, widths[index] - floor))
                widths[index] -= cut
                excess -= cut
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                let fitted = DisplayWidth.truncate(cell, to: widths[index])
                let padding = String(repeating: " ", count: max(0, widths[index] - DisplayWidth.of(fitted)))
                if columns[index].numeric {
                    text += padding + fitted
                } else {
                    text += fitted + (isLast ? "" : padding)
                }
                if !isLast { text += String(repeating: " ", count: gap) }
            }
            return text
        }
        return [line(columns.map(\.title))] + rows.map(line)
    }
}

/// How wide text is on a terminal, close enough for aligning columns: East
/// Asian wide and emoji characters take two cells, combining marks none.
enum DisplayWidth {
    static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.isASCII { return 1 }
        if character.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation })
            || character.unicodeScalars.contains("\u{FE0F}")
        {
            return 2
        }
        if first.properties.generalCategory == .nonspacingMark || first.properties.generalCategory == .format {
            return 0
        }
        return isWide(first.value) ? 2 : 1
    }

    private static func isWide(_ v: UInt32) -> Bool {
        (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x20000...0x3FFFD).contains(v)
    }

    /// `text` cut to `width` cells, ending in "…" when it was cut.
    static func truncate(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        guard width > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let w = of(character)
            if used + w > width - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }
}

/// Makes store text safe to print for people.
enum TextCleaning {
    /// Control characters (escape sequences start with one) and bidirectional
    /// overrides become U+FFFD; line breaks and tabs become spaces.
    static func sanitize(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsReplacing) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\t" || scalar == "\n" || scalar == "\r" {
                result.append(" ")
            } else if needsReplacing(scalar) {
                result.append("\u{FFFD}")
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Sanitized, for one table cell or one line.
    static func singleLine(_ text: String) -> String { sanitize(text) }

    /// Sanitized, keeping line breaks (for a message body).
    static func multiline(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { sanitize(String($0)) }.joined(separator: "\n")
    }

    private static func needsReplacing(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

extension Terminal {
    /// Columns available for a table: the terminal's width on a terminal;
    /// otherwise `$COLUMNS` if set, else unlimited (pipes get whole lines).
    static var outputWidth: Int? {
        // Paged output is still read on the terminal it was started from.
        if let columns = Pager.terminalColumns { return columns }
        let onTerminal = standardOutputIsTerminal || Pager.isActive
        if standardOutputIsTerminal {
            var size = winsize()
            if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        }
        if let columns = EnvironmentVariables.process["COLUMNS"].flatMap({ Int($0) }), columns > 0 {
            return columns
        }
        return onTerminal ? 80 : nil
    }
}
