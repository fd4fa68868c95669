import MirrorTestSupport
import Foundation
import GitHash
import Testing
@testable import GitHubSim

@Suite struct SyntheticRepositoryTests {
    let repo = SyntheticRepository(spec: SyntheticSpec(commits: 5_000, authors: 200, mergeEvery: 8, seed: 11))

    @Test func sameSeedSameHistoryOtherSeedOtherHistory() {
        let again = SyntheticRepository(spec: repo.spec)
        let other = SyntheticRepository(spec: SyntheticSpec(commits: 5_000, authors: 200, mergeEvery: 8, seed: 12))
        for index in [0, 1, 7, 8, 9, 2_500, 4_999] {
            #expect(repo.commit(at: index) == again.commit(at: index))
            #expect(repo.sha(at: index) != other.sha(at: index))
        }
        #expect(repo.people == again.people)
    }

    @Test func shaRoundTripsToItsIndexInConstantTime() {
        for index in [0, 1, 2, 3, 999, 4_998, 4_999] {
            let sha = repo.sha(at: index)
            #expect(sha.count == 40)
            #expect(sha.allSatisfy { "0123456789abcdef".contains($0) })
            #expect(repo.index(ofSHA: sha) == index)
            #expect(repo.index(ofSHA: sha.uppercased()) == index)
        }
        #expect(repo.index(ofSHA: repo.treeSHA(at: 5)) == nil)
        #expect(repo.index(ofSHA: String(repeating: "0", count: 40)) == nil)
        #expect(repo.index(ofSHA: "abc") == nil)
        // A sha of the same shape from another seed is not ours.
        let other = SyntheticRepository(spec: SyntheticSpec(commits: 5_000, seed: 99))
        #expect(repo.index(ofSHA: other.sha(at: 10)) == nil)
        let large = SyntheticRepository(spec: SyntheticSpec(commits: 200_000, seed: 3))
        #expect(large.index(ofSHA: large.sha(at: 187_654)) == 187_654)
        #expect(large.objectNames.list.bytes.count == 200_000 * 20)  // 20 bytes a commit
    }

    /// Every sha is the SHA-1 git computes for the commit's object, and the object says what
    /// the REST element says: tree, parents in order, names, emails, instants, message.
    @Test func shasAreTheGitNamesOfObjectsThatAgreeWithREST() throws {
        var offsets = Set<String>()
        var endingsWithoutNewline = 0
        for index in [0, 1, 7, 8, 15, 16, 2_500, 4_999] + Array(100..<400) {
            let body = repo.commitObject(at: index)
            var hasher = SHA1()
            hasher.update(Array("commit \(body.count)\0".utf8))
            hasher.update(body)
            #expect(SHA1.hex(hasher.finalize()) == repo.sha(at: index))
            let object = try #require(ParsedCommitObject(body))
            let rest = repo.commit(at: index)
            #expect(object.tree == rest.tree)
            #expect(object.parents == rest.parents)
            #expect(object.author.name == rest.author.name && object.author.email == rest.author.email)
            #expect(object.committer.name == rest.committer.name && object.committer.email == rest.committer.email)
            #expect(Timestamp.iso8601UTC(object.author.time) == rest.author.date)
            #expect(Timestamp.iso8601UTC(object.committer.time) == rest.committer.date)
            if object.message.hasSuffix("\n") {
                #expect(String(object.message.dropLast()) == rest.message)
            } else {
                #expect(object.message == rest.message)
                endingsWithoutNewline += 1
            }
            offsets.insert(object.author.offset)
            offsets.insert(object.committer.offset)
        }
        #expect(endingsWithoutNewline > 0, "some messages end without a newline")
        #expect(
            offsets.contains("+0000") && offsets.contains { $0.hasPrefix("-") } && offsets.contains { $0.hasPrefix("+") && $0 != "+0000" })
    }

    @Test func mergesHaveASideCommitReachableOnlyThroughTheSecondParent() {
        for index in 0..<200 {
            let parents = repo.parentIndices(at: index)
            if index == 0 {
                #expect(parents.isEmpty)
            } else if index >= 2 && index % 8 == 0 {
                #expect(repo.isMerge(at: index))
                #expect(parents == [index - 2, index - 1])
                #expect(repo.isSideCommit(at: index - 1))
                #expect(repo.parentIndices(at: index - 1) == [index - 2])
            } else {
                #expect(parents == [index - 1])
                // No commit uses a side commit as its first parent.
                #expect(!repo.isSideCommit(at: index - 1))
            }
        }
        let merge = repo.commit(at: 16)
        #expect(merge.parents == [repo.sha(at: 14), repo.sha(at: 15)])
        #expect(merge.message.hasPrefix("Merge pull request #2 from "))
        #expect(merge.message.hasSuffix("\n\n" + repo.commit(at: 15).message.split(separator: "\n").first!))
    }

    @Test func everyIndexAtOrBelowAFirstParentHeadIsReachable() {
        let small = SyntheticRepository(spec: SyntheticSpec(commits: 300, mergeEvery: 5, seed: 4))
        var head: Int? = small.headIndex
        var checked = 0
        while let h = head {
            #expect(!small.isSideCommit(at: h))
            #expect(Self.walk(small, from: h) == Set(0...h))
            if case .descending(let upper, let lower) = small.listing(from: h, since: nil, until: nil) {
                #expect(upper == h && lower == 0)
            }
            head = small.firstParent(of: h)
            checked += 1
        }
        #expect(checked > 200)  // the first-parent chain skips one side commit per merge
        #expect(Self.walk(small, from: small.headIndex).count == 300)
    }

    @Test func theRealisticShapeHasAQuarterMergesOfLongLivedSideBranches() {
        let real = SyntheticRepository(spec: SyntheticSpec(commits: 2_000, shape: .realistic, seed: 5))
        let merges = (0..<real.count).filter(real.isMerge(at:))
        #expect(merges.count == 499)  // every 4th index from 4 to 1,996
        // Side commits chain back through earlier merges' side commits, 16 merges per branch.
        var longestSideBranch = 0
        for merge in merges {
            var length = 0
            var side = real.parentIndices(at: merge)[1]
            while real.isSideCommit(at: side) {
                length += 1
                side = real.parentIndices(at: side)[0]
            }
            #expect(!real.isSideCommit(at: side))  // every side branch starts from the first-parent line
            longestSideBranch = max(longestSideBranch, length)
        }
        #expect(longestSideBranch == 16)
        // Still a history that a descending listing walks whole, from any first-parent head.
        for head in [real.headIndex, real.firstParent(of: real.headIndex)!, 1_001] where !real.isSideCommit(at: head) {
            #expect(Self.walk(real, from: head) == Set(0...head))
        }
        for index in 1..<real.count {
            #expect(real.parentIndices(at: index).allSatisfy { $0 < index })
        }
    }

    @Test func firstParentSuccessorInvertsFirstParentOnTheChain() {
        var node = repo.headIndex
        for _ in 0..<500 {
            let parent = repo.firstParent(of: node)!
            #expect(repo.firstParentSuccessor(of: parent) == node)
            node = parent
        }
        #expect(repo.firstParentSuccessor(of: repo.headIndex) == nil)
    }

    @Test func committerDatesStrictlyDecreaseDownTheLog() {
        #expect(repo.commit(at: 0).committer.date == "2015-01-01T00:00:00Z")
        #expect(repo.commit(at: 1).committer.date == "2015-01-01T00:10:00Z")
        for index in 1..<300 {
            #expect(repo.committerTime(at: index) > repo.committerTime(at: index - 1))
            let author = Timestamp.parseISO8601(repo.commit(at: index).author.date)!
            let lag = repo.committerTime(at: index) - author
            #expect((0...(3 * 86_400)).contains(lag))
        }
    }

    @Test func sinceAndUntilAreInclusiveIndexBounds() {
        let base = SyntheticRepository.firstCommitTime
        let listing = repo.listing(from: 4_000, since: base + 600 * 10, until: base + 600 * 20)
        #expect(listing.count == 11)
        #expect(listing[0] == 20 && listing[10] == 10)
        #expect(repo.listing(from: 4_000, since: base + 600 * 10 + 1, until: nil)[3_989] == 11)
        #expect(repo.listing(from: 100, since: nil, until: base - 1).count == 0)
        #expect(repo.listing(from: 100, since: base + 600 * 101, until: nil).count == 0)
    }

    @Test func authorPoolIsSkewedInternationalAndPartlyWithoutAccounts() {
        let people = repo.people
        #expect(people.count == 200)
        #expect(Set(people.map(\.email)).count == 200)
        #expect(people.allSatisfy { $0.email.allSatisfy(\.isASCII) })
        let international = people.filter { !$0.name.allSatisfy(\.isASCII) }.count
        #expect(international >= 20)
        let withoutAccount = people.filter { $0.login == nil }.count
        #expect((8...35).contains(withoutAccount))

        var counts = [Int](repeating: 0, count: people.count)
        for index in 0..<repo.count { counts[repo.authorIndex(at: index)] += 1 }
        let sorted = counts.sorted(by: >)
        #expect(sorted[0] > 500)  // Zipf: the busiest author has a large share
        #expect(sorted[0] > 20 * sorted[100])
    }

    @Test func messagesMixShapesAndMentionFixesAtARealisticRate() {
        let messages = (0..<4_000).map { repo.commit(at: $0).message }
        let fixes = messages.filter { $0.lowercased().contains("fix") }.count
        #expect((600...1_000).contains(fixes), "fix rate \(fixes) / 4000")
        #expect(messages.contains { !$0.contains("\n") })
        #expect(messages.contains { $0.components(separatedBy: "\n\n").count >= 3 })
        #expect(messages.contains { $0.contains("\\") })
        #expect(messages.contains { $0.contains("\"") })
        #expect(messages.contains { !$0.allSatisfy(\.isASCII) })
        #expect(messages.allSatisfy { !$0.hasSuffix("\n") })
    }

    @Test func mergesAreOftenCommittedByWebFlow() {
        let merges = stride(from: 8, to: 4_000, by: 8).map { repo.commit(at: $0) }
        let webFlow = merges.filter { $0.committer.email == "noreply@github.com" && $0.committer.name == "GitHub" }.count
        #expect(webFlow > merges.count / 2 && webFlow < merges.count)
    }

    @Test func mergeEveryZeroIsLinearAndOneIsTreatedAsTwo() {
        let linear = SyntheticRepository(spec: SyntheticSpec(commits: 100, mergeEvery: 0))
        #expect((0..<100).allSatisfy { !linear.isMerge(at: $0) })
        let dense = SyntheticRepository(spec: SyntheticSpec(commits: 100, mergeEvery: 1))
        #expect(dense.isMerge(at: 4) && !dense.isMerge(at: 5))
        #expect(Self.walk(dense, from: 99).count == 100)
    }

    /// Reachability by an honest graph walk over parent shas.
    static func walk(_ repo: SyntheticRepository, from head: Int) -> Set<Int> {
        var seen: Set<Int> = [head]
        var stack = [head]
        while let node = stack.popLast() {
            for parent in repo.commit(at: node).parents {
                let index = repo.index(ofSHA: parent)!
                if seen.insert(index).inserted { stack.append(index) }
            }
        }
        return seen
    }
}
