/// Tag names as `git check-ref-format refs/tags/<name>` accepts them, checked
/// before a name a server listed reaches the store or a log line.
public enum TagName {
    /// The longest name accepted, in UTF-8 bytes: far above any real tag, and a bound on what one costs to keep.
    public static let maximumBytes = 1024

    /// `nil` when `name` (the part after `refs/tags/`) is a name git accepts, else why not (a short phrase).
    /// Git's rules (git-check-ref-format(1)); unlike a branch, a tag may start with `-` or be `HEAD`.
    public static func problem(with name: String) -> String? {
        if name.utf8.count > maximumBytes { return "it is over \(maximumBytes) bytes long" }
        return RefNameRules.problem(with: name)
    }
}
