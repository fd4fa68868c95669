/// Paths as git prints them with `core.quotePath` on (its default): a path
/// holding a control byte, `"`, `\`, DEL or any byte of 0x80 and above is put
/// in double quotes with C escapes, non-ASCII bytes as three octal digits, so
/// that any path prints as one line of ASCII.
public enum GitPathQuoting {
    public static func quoted(_ path: [UInt8]) -> String {
        guard path.contains(where: needsQuoting) else { return String(decoding: path, as: UTF8.self) }
        var text: [UInt8] = [UInt8(ascii: "\"")]
        text.reserveCapacity(path.count + 8)
        for byte in path {
            guard needsQuoting(byte) else {
                text.append(byte)
                continue
            }
            text.append(UInt8(ascii: "\\"))
            if let letter = letterEscape(byte) {
                text.append(letter)
            } else {
                text.append(UInt8(ascii: "0") + (byte >> 6))
                text.append(UInt8(ascii: "0") + ((byte >> 3) & 7))
                text.append(UInt8(ascii: "0") + (byte & 7))
            }
        }
        text.append(UInt8(ascii: "\""))
        return String(decoding: text, as: UTF8.self)
    }

    private static func needsQuoting(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte >= 0x7f
    }

    /// The escapes git writes as a letter rather than in octal (its `cq_lookup`).
    private static func letterEscape(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x07: UInt8(ascii: "a")
        case 0x08: UInt8(ascii: "b")
        case 0x09: UInt8(ascii: "t")
        case 0x0a: UInt8(ascii: "n")
        case 0x0b: UInt8(ascii: "v")
        case 0x0c: UInt8(ascii: "f")
        case 0x0d: UInt8(ascii: "r")
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
        default: nil
        }
    }
}
