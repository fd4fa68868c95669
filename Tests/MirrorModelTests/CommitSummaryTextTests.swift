import MirrorModel
import Testing

/// `CommitSummary.subject` and `spaceSeparated` read text scalar by scalar and
/// byte by byte, for speed; these hold them to what the Character-based
/// definitions (`Character.isNewline`, `split(separator: " ")`) give.
@Suite struct CommitSummaryTextTests {
    static func summary(message: String, parents: [String] = []) -> CommitSummary {
        let person = CommitPerson(name: "A", email: "a@example.com", login: nil, date: "2026-01-01T00:00:00Z")
        return CommitSummary(
            sha: "0", message: message, url: nil, author: person, committer: person, parents: parents, repositories: [],
            storeID: 1)
    }

    static func characterSubject(_ message: String) -> String {
        message.firstIndex(where: \.isNewline).map { String(message[..<$0]) } ?? message
    }

    @Test(arguments: [
        "", "\n", "one line", "subject\nbody", "subject\r\nbody", "subject\rbody", "tab\u{0B}vt", "ff\u{0C}x",
        "nel\u{85}x", "ls\u{2028}x", "ps\u{2029}x", "e\u{301}\n", "\u{301}\nleading mark", "a\n\u{301}b", "👩\u{200D}💻\r\n",
        "🇫🇷\n🇩🇪", "\r", "\r\n", "no newline é ß ǅ",
    ])
    func subjectEndsWhereTheFirstNewlineCharacterDoes(message: String) {
        #expect(Self.summary(message: message).subject == Self.characterSubject(message))
    }

    @Test func subjectAgreesOnRandomTextMadeOfTrickyScalars() {
        let pool: [Unicode.Scalar] = [
            "a", "é", " ", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}", "\u{301}", "\u{200D}",
            "\u{1F1EB}", "\u{1F1F7}", "\u{1F469}", "\u{FE0F}", "\u{1100}", "\u{1161}", "\u{0}", "\t",
        ]
        var generator = SplitMix64(seed: 30)
        for _ in 0..<5_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int(generator.next() % 12) { text.append(pool[Int(generator.next() % UInt64(pool.count))]) }
            let message = String(text)
            #expect(Self.summary(message: message).subject == Self.characterSubject(message), "\(message.debugDescription)")
        }
    }

    @Test(arguments: ["", " ", "a", "a b", " a  b ", "0123abc 4567def", "owner/name other/repo", "é b"])
    func spaceSeparatedGivesWhatSplittingOnTheSpaceCharacterGives(joined: String) {
        #expect(CommitSummary.spaceSeparated(joined) == joined.split(separator: " ").map(String.init))
    }

    /// Split on bytes: a combining mark after a space starts the next piece, where
    /// splitting Characters would keep the space and the mark together.
    @Test func spaceSeparatedSplitsOnTheByteNotTheCharacter() {
        #expect(CommitSummary.spaceSeparated("a \u{301}b") == ["a", "\u{301}b"])
        #expect(CommitSummary.spaceSeparated("a\u{301} b") == ["a\u{301}", "b"])
    }
}

/// A small seeded generator, so a failure names a reproducible input.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
