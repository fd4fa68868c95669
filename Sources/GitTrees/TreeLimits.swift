/// How much one tree, and one diff, may hold before it is refused: a server
/// sends trees, and a few hostile bytes must not buy unbounded time or memory.
public struct TreeLimits: Sendable, Equatable {
    /// Entries in one tree. Real directories stay in the tens of thousands.
    public var maximumEntries: Int
    /// Bytes of one tree object (its content, without the `tree <len>\0` header).
    public var maximumBytes: Int
    /// Trees nested inside one another along one path; git's own `core.maxTreeDepth` default.
    public var maximumDepth: Int
    /// Changed paths one diff may report, so that trees naming one subtree many times cannot multiply without end.
    public var maximumChanges: Int

    public static let `default` = TreeLimits(
        maximumEntries: 200_000, maximumBytes: 16 << 20, maximumDepth: 4096, maximumChanges: 1_000_000)

    public init(maximumEntries: Int, maximumBytes: Int, maximumDepth: Int, maximumChanges: Int) {
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
        self.maximumChanges = maximumChanges
    }
}
