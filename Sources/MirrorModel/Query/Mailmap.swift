import Foundation

/// git's `.mailmap` (gitmailmap(5)): maps the names and emails commits carry
/// to the canonical ones of the people behind them. Emails and names are
/// matched ignoring case, as git does.
///
///     Proper Name <commit@email>
///     <proper@email> <commit@email>
///     Proper Name <proper@email> <commit@email>
///     Proper Name <proper@email> Commit Name <commit@email>
public struct Mailmap: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var properName: String?
        var properEmail: String?
        /// Lowercased; nil matches any name.
        var commitName: String?
        /// Lowercased.
        var commitEmail: String
    }

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var line: Int
        public var description: String { "\(path):\(line): not a mailmap line (expected 'Proper Name <proper@email> <commit@email>')" }
    }

    var entries: [Entry] = []

    public init(parsing text: String, path: String = "mailmap") throws {
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            var rest = Substring(line)
            guard let first = Self.nameAndEmail(&rest) else { throw ParseError(path: path, line: index + 1) }
            if let second = Self.nameAndEmail(&rest) {
                entries.append(
                    Entry(
                        properName: first.name, properEmail: first.email,
                        commitName: second.name?.lowercased(), commitEmail: second.email.lowercased()))
            } else {
                entries.append(
                    Entry(
                        properName: first.name, properEmail: nil,
                        commitName: nil, commitEmail: first.email.lowercased()))
            }
        }
    }

    /// A file that cannot be read as a mailmap: one line naming it and why.
    public struct FileError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var problem: SmallTextFile.Problem
        public var description: String {
            "the mailmap file \(path) \(problem); expected a git .mailmap file (gitmailmap(5))"
        }
    }

    /// Far above any real mailmap (Linux's is ~100 KiB), far below what could hurt.
    public static let maximumSize = 4 << 20

    /// Reads and parses a mailmap file; never blocks on a FIFO, never reads a device or more than `maximumSize`.
    public init(contentsOfFile path: String) throws {
        switch SmallTextFile.contents(of: path, limit: Self.maximumSize) {
        case .success(let text): try self.init(parsing: text, path: path)
        case .failure(let problem): throw FileError(path: path, problem: problem)
        }
    }

    /// `Name <email>` at the start of `text` (the name may be empty); consumes it.
    private static func nameAndEmail(_ text: inout Substring) -> (name: String?, email: String)? {
        guard let open = text.firstIndex(of: "<"), let close = text[open...].firstIndex(of: ">") else { return nil }
        let name = text[..<open].trimmingCharacters(in: .whitespaces)
        let email = String(text[text.index(after: open)..<close])
        text = text[text.index(after: close)...]
        return (name.isEmpty ? nil : name, email)
    }

    /// The canonical name and email for an identity found on a commit. A
    /// name-specific entry wins over an email-only one, as in git.
    public func canonical(name: String, email: String) -> (name: String, email: String) {
        let lowerEmail = email.lowercased(), lowerName = name.lowercased()
        let candidates = entries.filter { $0.commitEmail == lowerEmail }
        guard
            let entry = candidates.last(where: { $0.commitName == lowerName })
                ?? candidates.last(where: { $0.commitName == nil })
        else { return (name, email) }
        return (entry.properName ?? name, entry.properEmail ?? email)
    }
}
