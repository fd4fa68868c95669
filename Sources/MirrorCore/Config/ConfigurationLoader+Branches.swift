import Yams

/// `branches:` on a repository entry: a list of branch names and globs, or one
/// of them alone (`"*"` for every branch).
extension ConfigurationLoader {
    /// What `branches:` says, checked: every element a branch name or glob, none twice.
    func branchSelection(_ node: Node, key: String) throws -> BranchSelection {
        let elements: [Node]
        switch node {
        case .scalar: elements = [node]
        case .sequence(let sequence) where !sequence.isEmpty: elements = Array(sequence)
        default:
            let problem = node.sequence?.isEmpty == true ? "is an empty list" : "is \(kind(of: node))"
            throw error(at: node, key: key, problem: problem, expected: BranchPattern.expectedForm)
        }
        var patterns: [BranchPattern] = []
        for (index, element) in elements.enumerated() {
            let elementKey = node.sequence == nil ? key : "\(key)[\(index)]"
            let text = try string(element, key: elementKey, expected: BranchPattern.expectedForm)
            guard let pattern = BranchPattern(parsing: text) else {
                let problem = BranchPattern.problem(with: text) ?? "it is not a branch name"
                throw error(
                    at: element, key: elementKey, problem: "\(BranchName.quoted(text)) is not a branch name or glob: \(problem)",
                    expected: BranchPattern.expectedForm)
            }
            guard !patterns.contains(pattern) else {
                throw error(
                    at: element, key: elementKey, problem: "\(BranchName.quoted(text)) is listed twice", expected: "each branch once")
            }
            patterns.append(pattern)
        }
        return BranchSelection(patterns)
    }

    /// The repository entries a `branches:` selection stands for today: one per
    /// branch it names. A glob needs the repository's branches listed first
    /// (docs/BRANCHES.md), which is not done yet, so it is refused in words.
    func branchEntries(
        _ selection: BranchSelection, node: Node, key: String, name: RepositoryName, interval: Duration?, line: Int?
    ) throws -> [MirrorConfiguration.Repository] {
        if let glob = selection.patterns.first(where: \.isGlob) {
            throw error(
                at: node, key: key,
                problem:
                    "\(BranchName.quoted(glob.text)) is a glob; mirroring every branch a glob selects needs branch discovery, which this version does not do yet (issue #29)",
                expected: "branch names, each mirrored on its own, e.g. `branches: [main, release/1.0]`")
        }
        return selection.names.map { MirrorConfiguration.Repository(name: name, branch: $0, interval: interval, line: line) }
    }
}
