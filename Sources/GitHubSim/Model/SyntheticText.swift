// Word lists for generated people and messages. Some entries deliberately carry quotes,
// backslashes, non-ASCII and the words "fix"/"bug", because clients must store and search them.

enum SyntheticText {
    static let firstNames = [
        "Alice", "Bob", "Carol", "David", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Karl", "Laura",
        "Mallory", "Niaj", "Olivia", "Peggy", "Quentin", "Rupert", "Sybil", "Trent", "Uma", "Victor", "Wendy",
        "Xavier", "Yasmin", "Zach", "Priya", "Kenji", "Fatima", "Lars", "Amara", "Diego", "Mei", "Tomasz", "Ingrid",
        "Rahul", "Chen", "Sofia", "Mateo", "Hannah",
    ]
    static let lastNames = [
        "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
        "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
        "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker",
        "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
    ]
    /// Display name and the ASCII email local part such a person would pick.
    static let internationalNames: [(name: String, local: String)] = [
        ("José Álvarez", "jose.alvarez"), ("Zoë Müller", "zoe.mueller"), ("李雷", "li.lei"),
        ("韩梅梅", "han.meimei"), ("Ђорђе Петровић", "djordje.petrovic"), ("Søren Ødegård", "soren.odegard"),
        ("Małgorzata Wiśniewska", "malgorzata.wisniewska"), ("Hélène Dubois", "helene.dubois"),
        ("Jürgen Groß", "juergen.gross"), ("Ömer Yıldız", "omer.yildiz"), ("Nguyễn Văn An", "an.nguyen"),
        ("田中 花子", "hanako.tanaka"), ("Αλέξανδρος Παπαδόπουλος", "alexandros.papadopoulos"),
        ("Chloé Lefèvre", "chloe.lefevre"), ("Björn Ångström", "bjorn.angstrom"), ("Иван Иванов", "ivan.ivanov"),
        ("François Côté", "francois.cote"), ("Łukasz Żółw", "lukasz.zolw"), ("Şebnem Çelik", "sebnem.celik"),
        ("김민준", "minjun.kim"), ("Antonín Dvořák", "antonin.dvorak"), ("Siobhán Ní Bhriain", "siobhan.nibhriain"),
    ]
    /// Time zones people commit from, minutes east of UTC (both sides of UTC, half and quarter hours).
    static let utcOffsetsMinutes = [0, 0, 60, 120, 180, -300, -360, -420, -480, 330, 345, 480, 540, 600, -180, -210, 765]
    static let domains = ["example.com", "example.org", "mail.example.net", "corp.example.dev"]

    static let verbs = [
        "Add", "Update", "Refactor", "Remove", "Improve", "Clarify", "Rename", "Document", "Simplify", "Implement",
        "Revise", "Tidy up", "Move", "Reword", "Expand", "Polish", "Deprecate", "Test", "Reorganize", "Introduce",
    ]
    static let objects = [
        "the proposal template", "README", "the review schedule", "async sequence examples",
        "the `Sendable` section", "typed throws discussion", "the motivation section", "source compatibility notes",
        "ABI stability notes", "the detailed design", "alternatives considered", "the \"future directions\" section",
        "macro expansion examples", "the acknowledgments", "code samples for `withTaskGroup`", "links to the forums",
        "the status field", "the implementation link", "the C++ interop chapter", "ownership terminology",
        "the glossary", "regex literal examples like /\\d+/", "the naïve string-matching example",
        "diagrams in the appendix", "the changelog", "CI configuration", "the contributor guide", "`~Copyable` examples",
        "the pitch summary", "tables of accepted proposals", "the \"Effect on API resilience\" section",
        "the 日本語 localisation notes", "documentation comments", "test coverage for parsing", "the release notes",
    ]
    static let problems = [
        "crash in the type checker", "off-by-one error in pagination", "race in the connection pool",
        "memory leak in the parser", "handling of empty arrays", "`Sendable` checking for closures",
        "the \"unused variable\" warning", "escaping of \\ in string literals", "sorting of non-ASCII names (ä, ø, ß)",
        "broken link to SE-0296", "typo in the motivation section", "wrong review dates", "markdown table rendering",
        "formatting of code blocks", "misleading example in the detailed design", "deadlock when cancelling tasks",
    ]
    static let fixTemplates = ["Fix ", "fix ", "Fix typo and ", "Bug fix: ", "Hotfix for ", "Fixes #"]
    static let sentences = [
        "This keeps the document in line with the latest review feedback.",
        "The previous wording was ambiguous about whether the rule applies to protocols.",
        "See the forum thread for the full discussion.",
        "No functional change intended.",
        "The example now compiles with the current toolchain.",
        "Thanks to everyone who commented on the pitch.",
        "This matches what the implementation actually does.",
        "It also drops an outdated reference to Swift 4.",
        "Reviewers asked for a shorter motivation section, so this trims it.",
        "The \"Alternatives considered\" section now explains why we did not use a new keyword.",
        "Paths such as C:\\Users\\dev\\Package.swift are now shown escaped.",
        "Use “smart quotes” consistently in prose, but not in code.",
        "Zoë and Søren helped review this change — merci beaucoup!",
        "The table is sorted by proposal number again.",
        "This resolves a long-standing bug where the status badge was wrong.",
        "It should also fix the rendering glitch reported on the forums.",
        "Mention that the feature is gated behind an experimental flag.",
        "Split the long paragraph into smaller ones for readability.",
        "Regex examples like \\w+ and \\s* now render correctly.",
        "The 2nd example used a deprecated API; it now uses the replacement.",
        "Keep line lengths under 100 columns.",
        "Clarify that the default is `nil` and that callers may override it.",
        "Remove trailing whitespace.",
        "Add a note about ABI impact on Apple platforms.",
    ]
    static let bullets = [
        "update the header fields", "rename the example type", "drop the unused import", "add a test case",
        "regenerate the table of contents", "tighten the wording in the summary", "link the implementation PR",
    ]
}
