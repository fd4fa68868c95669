/// Case-insensitive matching of people the way `git log --author` does it:
/// a substring of "Name <email>", ignoring case (Unicode-aware, unlike SQLite's
/// ASCII-only `lower()`/`LIKE`).
public enum AuthorSearch {
    /// The stored `authors.search_text`.
    public static func searchText(name: String, email: String) -> String {
        "\(name) <\(email)>".lowercased()
    }

    /// The needle to look for with `instr(search_text, ?)`.
    public static func needle(_ text: String) -> String {
        text.lowercased()
    }
}
