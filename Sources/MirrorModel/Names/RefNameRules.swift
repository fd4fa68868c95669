/// What `git check-ref-format` refuses in any ref name, whatever its namespace:
/// branches (`BranchName`) and tags (`TagName`) add only their own rules.
enum RefNameRules {
    /// `nil` when `name` passes git's rules common to every ref (git-check-ref-format(1)), else why not.
    static func problem(with name: String) -> String? {
        if name.isEmpty { return "it is empty" }
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
