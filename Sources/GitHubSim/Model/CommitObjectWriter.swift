// A git commit object's body, byte for byte as git writes one (gitformat-commit): `tree`, the
// `parent` lines in order, `author` and `committer` idents, a blank line, the message. A tag
// object (gitformat-tag) is written the same way: header lines, a blank line, the message.

struct CommitObjectWriter {
    private(set) var bytes: [UInt8] = []

    init(tree: String) {
        self.init(header: "tree", value: tree)
    }

    init(header: String, value: String) {
        bytes.reserveCapacity(512)
        self.header(header, value)
    }

    mutating func header(_ name: String, _ value: String) {
        bytes += name.utf8
        bytes.append(0x20)
        bytes += value.utf8
        bytes.append(0x0A)
    }

    mutating func parent(_ sha: String) {
        header("parent", sha)
    }

    /// `author Name <email> 1420070400 +0530`; without `bracketingEmail`, the
    /// malformed `author Name email 1420070400 +0530`.
    mutating func signature(_ header: String, _ signature: GitSignature, bracketingEmail: Bool = true) {
        bytes += header.utf8
        bytes.append(0x20)
        bytes += signature.name.utf8
        bytes += (bracketingEmail ? " <" : " ").utf8
        bytes += signature.email.utf8
        bytes += (bracketingEmail ? "> " : " ").utf8
        bytes += String(signature.time).utf8
        bytes.append(0x20)
        let offset = abs(signature.utcOffsetMinutes)
        bytes.append(signature.utcOffsetMinutes < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        for digit in [offset / 600, offset / 60 % 10, offset % 60 / 10, offset % 10] {
            bytes.append(UInt8(ascii: "0") + UInt8(digit))
        }
        bytes.append(0x0A)
    }

    mutating func message(_ text: String, newlineAtEnd: Bool) {
        bytes.append(0x0A)
        bytes += text.utf8
        if newlineAtEnd { bytes.append(0x0A) }
    }
}
