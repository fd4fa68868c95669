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

    static let tagSelectionForm = "true, false, or a tag glob such as 'v*' (or a list of them), as git tag -l matches them"

    /// `tags:`: true, false, a glob of tag names, or a list of globs.
    func tagSelection(_ node: Node, key: String) throws -> TagSelection {
        let expected = Self.tagSelectionForm
        let elements: [Node]
        switch node {
        case .scalar:
            let text = try string(node, key: key, expected: expected)
            switch text.lowercased() {
            case "true", "yes", "on": return .all
            case "false", "no", "off": return .none
            default: elements = [node]
            }
        case .sequence(let sequence) where !sequence.isEmpty: elements = Array(sequence)
        default:
            let problem = node.sequence?.isEmpty == true ? "is an empty list" : "is \(kind(of: node))"
            throw error(at: node, key: key, problem: problem, expected: expected)
        }
        var globs: [String] = []
        for (index, element) in elements.enumerated() {
            let elementKey = node.sequence == nil ? key : "\(key)[\(index)]"
            let glob = try string(element, key: elementKey, expected: expected)
            if glob.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw error(at: element, key: elementKey, problem: "holds a control character", expected: expected)
            }
            globs.append(glob)
        }
        return .matching(globs)
    }
}
