/// What recording a branch's new head does to its `branch_commits` rows (the
/// commits the head reaches), the same rule on every store: rows are exact for
/// the previous head when that head was recorded complete, so a fast-forward only
/// adds what the new head reaches beyond them; anything else is recomputed.
public enum BranchMembershipUpdate: Sendable, Equatable {
    /// The head is the one the rows already describe.
    case none
    /// No head (an empty repository): no rows.
    case clear
    /// A move from an exact `previous` head: a walk from `head` that stops at the
    /// branch's rows meets `previous` exactly when the move is a fast-forward (then
    /// the walk's commits are added); otherwise (a rewind or a rewrite) recompute.
    case extendOrRecompute(previous: String, head: String)
    /// Rows from scratch: a new branch, or rows that may not be exact.
    case recompute(head: String)

    public init(previousHead: String?, previousComplete: Bool, head: String?) {
        guard let head else {
            self = .clear
            return
        }
        guard let previousHead, previousComplete else {
            self = .recompute(head: head)
            return
        }
        self = previousHead == head ? .none : .extendOrRecompute(previous: previousHead, head: head)
    }
}
