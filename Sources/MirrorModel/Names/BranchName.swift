/// Branch names as `git check-ref-format --branch` accepts them, checked
/// before a name reaches a URL, the store or a log line.
public enum BranchName {
    /// What a user should type, for error messages.
    public static let expectedForm = "a git branch name such as main or release/1.0"

    /// `nil` when `name` is a valid branch name, else why it is not (a short phrase).
    /// Git's rules (git-check-ref-format(1)), plus `@` alone, which git reads as HEAD.
    public static func problem(with name: String) -> String? {
        if name == "HEAD" { return "HEAD is not a branch" }
        if name.hasPrefix("-") { return "it starts with '-'" }
        return RefNameRules.problem(with: name)
    }

    /// `name` in single quotes with control characters escaped and at most 80
    /// characters kept, so a message stays one short line.
    public static func quoted(_ name: String) -> String {
        var text = "'"
        for scalar in (name.count > 80 ? name.prefix(79) + "…" : name).unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                text += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text + "'"
    }
}
