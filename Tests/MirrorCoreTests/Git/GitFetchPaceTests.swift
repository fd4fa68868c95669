import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

@testable import MirrorCore
import Synchronization

extension GitFetchPace {
    /// The production bounds scaled down, so a stalling server fails within
    /// seconds, while github-sim on loopback passes them even on a loaded
    /// machine (the whole suite on 2 cores): 256 bytes in 4 s is all it takes.
    static var forTests: GitFetchPace {
        var pace = GitFetchPace()
        pace.packStart = .seconds(20)
        pace.window = .seconds(4)
        pace.minimumPackBytesPerWindow = 256
        pace.maximumProgressPerWindow = 10
        pace.deadlineFloor = .seconds(60)
        pace.deadlineCap = .seconds(120)
        return pace
    }
}

/// Issue #25: a git server that keeps the fetch alive (progress forever, a pack
/// trickled a byte at a time) is cut short by what matters, the pack's own
/// bytes; the bounds themselves, then the real fetch over loopback.
@Suite struct GitFetchPaceTests {
    @Test func theDeadlineFollowsTheHistorysSizeBetweenAFloorAndACap() {
        let pace = GitFetchPace()
        #expect(pace.deadline(expectedCommits: nil) == .seconds(1800), "unknown: the cap")
        #expect(pace.deadline(expectedCommits: 0) == .seconds(180))
        // 100,000 commits × 600 bytes at 256 KiB/s: about 229 s more than the floor.
        let hundredThousand = pace.deadline(expectedCommits: 100_000)
        #expect(hundredThousand > .seconds(400) && hundredThousand < .seconds(420))
        #expect(pace.deadline(expectedCommits: 1_000_000) == .seconds(1800))
        #expect(pace.deadline(expectedCommits: .max) == .seconds(1800), "a page count a hostile API inflated")
    }

    /// The watch on its own, at chosen instants.
    @Test func progressNeverCountsAsLivenessAndKeepAlivesAreNothing() throws {
        let pace = GitFetchPace()
        let start = ContinuousClock.now
        func watch() -> FetchPaceWatch {
            FetchPaceWatch(pace: pace, deadline: start + .seconds(600), allowed: .seconds(600), now: start)
        }
        // The pack has not begun: two minutes, whatever comes meanwhile.
        var waiting = watch()
        try waiting.check(now: start + .seconds(119))
        #expect(throws: GitError.fetchTooSlow("the pack did not begin within 120 s")) { try waiting.check(now: start + .seconds(121)) }

        // Begun: each 15 s window must bring 16 KiB of pack; keep-alives (empty band 1) bring nothing.
        var slow = watch()
        slow.packBegan(now: start)
        for second in 1..<15 {
            slow.pack(0)
            try slow.check(now: start + .seconds(second))
        }
        slow.pack(100)
        #expect(throws: GitError.self) { try slow.check(now: start + .seconds(15)) }

        var steady = watch()
        steady.packBegan(now: start)
        for window in 1...30 {
            steady.pack(16 << 10)
            try steady.check(now: start + .seconds(15 * window))
        }

        // Progress: 200 messages a window, not one more.
        var chatty = watch()
        for message in 0..<200 { try chatty.progress(now: start + .milliseconds(message)) }
        #expect(throws: GitError.self) { try chatty.progress(now: start + .milliseconds(200)) }
        var paced = watch()
        for message in 0..<1000 { try paced.progress(now: start + .milliseconds(100 * message)) }

        // The deadline, whatever the rest.
        var late = watch()
        late.packBegan(now: start)
        late.pack(1 << 30)
        #expect(throws: GitError.fetchTooSlow("the fetch ran past the 600 s this history's size allows")) {
            try late.check(now: start + .seconds(600))
        }
    }

    /// github-sim keeping the fetch busy: the real fetcher over libcurl gives up within the
    /// bounds (here scaled down), names why, and hands on nothing.
    @Test(arguments: [GitFault.endlessProgress, .trickledPack])
    func aServerThatKeepsTheFetchAliveIsCutShort(_ fault: GitFault) async throws {
        let simulator = try await GitFromSimulatorTests.simulator(commits: 400, gitFault: fault)
        try await withRunning(simulator) { simulator async throws in
            let delivered = DeliveredCommits()
            let started = ContinuousClock.now
            await #expect {
                _ = try await GitFromSimulatorTests.fetch(simulator, collected: delivered)
            } throws: { error in
                guard case GitError.fetchTooSlow(let detail) = error else { return false }
                return fault == .endlessProgress ? detail.contains("progress messages") : detail.contains("bytes of pack in 4 s")
            }
            // The scaled bounds end it within ~4 s of the fetch (more on a loaded machine, the three
            // requests included); without them only the 30-minute timeout did.
            #expect(ContinuousClock.now - started < .seconds(120))
            #expect(delivered.commits.withLock { $0.isEmpty })
        }
    }
}
