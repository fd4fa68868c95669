/// Tag names as `git check-ref-format refs/tags/<name>` accepts them, checked
/// before a name a server listed reaches the store or a log line.
public enum TagName {
    /// The longest name accepted, in UTF-8 bytes: far above any real tag, and a bound on what one costs to keep.
    public static let maximumBytes = 1024

    /// `nil` when `name` (the part after `refs/tags/`) is a name git accepts, else why not (a short phrase).
    /// Git's rules (git-check-ref-format(1)); unlike a branch, a tag may start with `-` or be `HEAD`.
    public static func problem(with name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.utf8.count > maximumBytes { return "it is over \(maximumBytes) bytes long" }
        if name == "@" { return "'@' alone means HEAD" }
        if name.hasPrefix("/") || name.hasSuffix("/") { return "it starts or ends with '/'" }
        if name.contains("//") { return "it contains '//'" }
        if name.contains("..") { return "it contains '..'" }
        if name.contains("@{") { return "it contains '@{'" }
        if name.hasSuffix(".") { return "it ends with '.'" }
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\u{00}"..."\u{1F}", "\u{7F}": return "it contains a control character"
            case " ", "~", "^", ":", "?", "*", "[", "\\": return "it contains '\(scalar)'"
            default: continue
            }
        }
        for component in name.split(separator: "/") {
            if component.hasPrefix(".") { return "a component starts with '.'" }
            if component.hasSuffix(".lock") { return "a component ends with '.lock'" }
        }
        return nil
    }
}
