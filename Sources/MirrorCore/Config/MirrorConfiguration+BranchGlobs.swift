extension MirrorConfiguration {
    /// The globs of a repository entry's `branches:` (`"release/*"`, `"*"`): the
    /// branches they select are found by listing the repository's branches
    /// (`BranchListing`) on every poll, so a new matching branch is mirrored on
    /// the next round. The exact names of the same entry are `repositories` entries.
    public struct BranchGlobs: Sendable, Hashable, CustomStringConvertible {
        public var name: RepositoryName
        /// Only the globs: the entry's exact names are entries of their own.
        public var selection: BranchSelection
        /// `nil`: `default_interval`.
        public var interval: Duration?
        /// Where the entry is in the file, for messages (not part of equality).
        public var line: Int?

        public init(name: RepositoryName, selection: BranchSelection, interval: Duration? = nil, line: Int? = nil) {
            self.name = name
            self.selection = selection
            self.interval = interval
            self.line = line
        }

        /// Repositories are named case-insensitively, as GitHub does.
        public var key: String { name.description.lowercased() }

        /// `acme/widgets@release/*`.
        public var description: String { "\(name)@\(selection)" }

        /// The entry mirroring `branch`, one the globs select, polled on the globs' interval.
        public func entry(for branch: String) -> Repository {
            Repository(name: name, branch: branch, interval: interval, line: line)
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.key == rhs.key && lhs.selection == rhs.selection && lhs.interval == rhs.interval
                && lhs.name.description == rhs.name.description
        }

        public func hash(into hasher: inout Hasher) { hasher.combine(key) }
    }
}
