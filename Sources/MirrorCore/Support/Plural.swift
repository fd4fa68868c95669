/// "1 commit", "2 commits", "1 repository", "3 repositories": every count the
/// programs print goes through here, so none reads "1 requests".
public func plural(_ count: Int, _ noun: String, _ pluralForm: String? = nil) -> String {
    "\(count) \(count == 1 ? noun : pluralForm ?? noun + "s")"
}
