import MirrorTestSupport
import Foundation
import Testing

/// Issue #16 acceptance 3: `query --follow` prints exactly the newly stored
/// matching commits, within 2 s of the sync that stores them.
@Suite struct FollowTests {
    /// Lines a running process prints, as they come; waiters are woken per line.
    final class LineCollector: @unchecked Sendable {
        private let condition = NSCondition()
        private var lines: [String] = []
        private var partial = Data()

        func append(_ data: Data) {
            condition.lock()
            partial.append(data)
            while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: partial[partial.startIndex..<newline], as: UTF8.self))
                partial.removeSubrange(partial.startIndex...newline)
            }
            condition.broadcast()
            condition.unlock()
        }

        /// `wait(for:until:)` on a thread of its own: the wait may last seconds,
        /// which on the cooperative pool would stall every other test of the process.
        func lines(count: Int, until deadline: Date) async -> [String] {
            await onThread { self.wait(for: count, until: deadline) }
        }

        /// The lines so far once there are at least `count`, or at `deadline`.
        func wait(for count: Int, until deadline: Date) -> [String] {
            condition.lock()
            defer { condition.unlock() }
            while lines.count < count, condition.wait(until: deadline) {}
            return lines
        }
    }

    @Test func followPrintsTheNewMatchingCommitsAsTheyArrive() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("commits.sqlite")
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=600:4"])
        defer { sim.stop() }
        _ = try await sim.control("/_sim/repos/acme/widgets/head?back=40", method: "POST")
        let sync = ["sync", "acme/widgets", "--db", db, "--api-url", sim.baseURL]
        let first = try await run("commitsctl", sync, environment: ["GITHUB_TOKEN": "test-token"])
        #expect(first.status == 0, "\(first.stderr)")
        let filter = ["--no-merges", "--format", "ndjson", "--db", db]
        let before = try await commitsctl(["query"] + filter).lines
        let everyCommitBefore = try await commitsctl(["query", "--db", db]).lines.count

        let follower = try ChildProcess(product: "commitsctl", ["query", "--follow"] + filter, environment: ["TZ": "UTC"], stdout: .pipe)
        defer { follower.kill() }
        let collector = LineCollector()
        follower.output!.readabilityHandler = { collector.append($0.availableData) }
        let listed = await collector.lines(count: before.count, until: Date().addingTimeInterval(30))
        #expect(listed == before)

        _ = try await sim.control("/_sim/repos/acme/widgets/head?forward=40", method: "POST")
        let second = try await run("commitsctl", sync, environment: ["GITHUB_TOKEN": "test-token"])
        #expect(second.status == 0, "\(second.stderr)")
        let stored = Date()
        let after = try await commitsctl(["query"] + filter).lines
        let new = after.filter { !before.contains($0) }
        // Some new commits match and some (the merges) do not.
        let everyNewCommit = try await commitsctl(["query", "--db", db]).lines.count - everyCommitBefore
        #expect(!new.isEmpty && new.count < everyNewCommit)
        let printed = Array(
            await collector.lines(count: before.count + new.count, until: stored.addingTimeInterval(2)).dropFirst(before.count))
        // Stored newest first (GitHub's listing order), so they arrive newest first.
        #expect(printed == new)
    }
}
