import Foundation
import GitTrees
import MirrorTestSupport
import Testing

/// Every commit's changes equal what real git prints, on Alamofire's real history and on a generated one with every awkward shape.
@Suite struct RealHistoryTests {
    @Test(.enabled(if: BareRepository.hasAlamofire, "needs ../shared/datasets/alamofire.bundle"))
    func everyAlamofireCommitMatchesGitLog() async throws {
        let parity = try await onThread { try GitParity(of: BareRepository.cloning(BareRepository.alamofireBundle)) }
        expectAgreement(parity)
        #expect(parity.firstParent.count >= 1678)
        #expect(parity.merges > 0)
        print(
            "GitTrees: diffed \(parity.firstParent.count) Alamofire commits (\(parity.merges) merges) in \(parity.diffing), "
                + "parsing \(parity.treesParsed) of \(parity.treesInRepository) trees")
    }

    @Test(.enabled(if: BareRepository.hasAlamofire, "needs ../shared/datasets/alamofire.bundle"))
    func everyAlamofireTreeIsVerified() async throws {
        let contents = try await onThread { try BareRepository.cloning(BareRepository.alamofireBundle).treeContents() }
        #expect(contents.count > 1000)
        for (id, bytes) in contents {
            #expect(throws: Never.self) { try GitTree(parsing: bytes, id: id) }
        }
    }

    @Test func aGeneratedHistoryWithEveryShapeMatchesGitLog() async throws {
        let parity = try await onThread { try GitParity(of: BareRepository.importing(GeneratedHistory.stream)) }
        expectAgreement(parity)
        #expect(parity.firstParent.count == GeneratedHistory.commitCount)
        #expect(parity.merges == 2)
        #expect(parity.gitMergePaths.count == 2 && parity.gitMergePaths.values.allSatisfy { $0.count >= 3 })
        let statuses = Set(parity.gitFirstParent.values.joined().map { $0.split(separator: "\t")[0].last! })
        #expect(statuses == ["A", "D", "M", "T"])
        // The quoted names git prints must be among them, so the quoting was exercised.
        let allNames = Set(parity.gitNames.values.joined())
        for name in GeneratedHistory.quotedNames { #expect(allNames.contains(name), "git printed no \(name)") }
    }

    private func expectAgreement(_ parity: GitParity, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(parity.firstParent.count == parity.gitFirstParent.count, sourceLocation: sourceLocation)
        for (commit, lines) in parity.gitFirstParent where parity.firstParent[commit] != lines {
            Issue.record(
                "first-parent diff of \(commit): git \(lines), GitTrees \(parity.firstParent[commit] ?? [])", sourceLocation: sourceLocation
            )
        }
        #expect(parity.mergePaths.count == parity.gitMergePaths.count, sourceLocation: sourceLocation)
        for (commit, lines) in parity.gitMergePaths where parity.mergePaths[commit] != lines {
            Issue.record(
                "combined diff of \(commit): git \(lines), GitTrees \(parity.mergePaths[commit] ?? [])", sourceLocation: sourceLocation)
        }
        for (commit, lines) in parity.gitNames where parity.names[commit] != lines {
            Issue.record("names of \(commit): git \(lines), GitTrees \(parity.names[commit] ?? [])", sourceLocation: sourceLocation)
        }
    }
}
