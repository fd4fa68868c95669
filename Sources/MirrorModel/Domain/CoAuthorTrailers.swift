import Foundation

/// `Co-authored-by: Name <email>` trailers, GitHub's convention for crediting
/// co-authors: a rule about commit messages, applied once when a `Commit` is
/// mapped, so every store backend records the same people.
package enum CoAuthorTrailers {
    /// The identities credited, in message order, each once. A trailer is a
    /// line of its own; the key is matched ignoring case, as git does.
    package static func parse(_ message: String) -> [Identity] {
        // Cheap test first: most messages credit no one.
        guard mayCredit(message) else { return [] }
        var people: [Identity] = []
        for rawLine in message.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard line.count > 15, line.prefix(15).lowercased() == "co-authored-by:" else { continue }
            let value = line.dropFirst(15)
            guard let open = value.lastIndex(of: "<"), let close = value[open...].firstIndex(of: ">") else { continue }
            let person = Identity(
                name: value[..<open].trimmingCharacters(in: .whitespaces),
                email: String(value[value.index(after: open)..<close]).trimmingCharacters(in: .whitespaces))
            guard !person.email.isEmpty || !person.name.isEmpty,
                !people.contains(where: { $0.name == person.name && $0.email == person.email })
            else { continue }
            people.append(person)
        }
        return people
    }

    /// Whether the message contains `co-authored-by:` in any ASCII case: a byte
    /// scan, since Foundation's case-insensitive search showed in sync profiles.
    static func mayCredit(_ message: String) -> Bool {
        var message = message
        return message.withUTF8 { bytes in
            guard bytes.count >= key.count else { return false }
            for start in 0...(bytes.count - key.count) {
                var offset = 0
                // Setting 0x20 folds an ASCII capital to lower case; the key's other bytes have it set.
                while offset < key.count, bytes[start + offset] | (key[offset] >= 0x61 ? 0x20 : 0) == key[offset] {
                    offset += 1
                }
                if offset == key.count { return true }
            }
            return false
        }
    }

    private static let key = Array("co-authored-by:".utf8)
}
