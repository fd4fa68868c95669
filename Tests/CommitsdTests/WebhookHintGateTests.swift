import Foundation
import MirrorCore
import Synchronization
import Testing

@testable import commitsd

/// The rules between webhook deliveries and the plan, on injected instants:
/// one hint per branch per spacing, a budget for all, folded hints sent later,
/// never lost; refusals logged once per interval; log values escaped.
@Suite struct WebhookHintGateTests {
    final class Sent: Sendable {
        let hints = Mutex<[WebhookHint]>([])
        var count: Int { hints.withLock { $0.count } }
        func pushes() -> [(WebhookPush, ContinuousClock.Instant)] {
            hints.withLock { $0.compactMap { if case .push(let push, let at) = $0 { (push, at) } else { nil } } }
        }
    }

    static func push(_ name: String, branch: String = "main") -> WebhookPush {
        WebhookPush(repositoryID: nil, repositoryName: RepositoryName(parsing: name)!, branch: branch, defaultBranch: "main")
    }

    @Test func aBranchGetsOneHintASecondAndWhatArrivesMeanwhileIsFoldedIntoTheNext() {
        let sent = Sent()
        let start = ContinuousClock.now
        // The instant the test is at, and when each hint was sent.
        let clock = Mutex(start)
        let sentAt = Mutex<[ContinuousClock.Instant]>([])
        let gate = WebhookHintGate(now: start) { hint in
            sent.hints.withLock { $0.append(hint) }
            sentAt.withLock { $0.append(clock.withLock { $0 }) }
        }
        var admissions: [WebhookHintGate.Admission] = []
        // 40 a second for 3 s, all for one branch.
        for index in 0..<120 {
            let now = start + .milliseconds(25 * index)
            clock.withLock { $0 = now }
            admissions.append(gate.admit(.push(Self.push("acme/widgets"), receivedAt: now), now: now) { true })
            gate.sendDue(now: now)
        }
        clock.withLock { $0 = start + .seconds(4) }
        gate.sendDue(now: start + .seconds(4))
        #expect(admissions.first == .sent)
        #expect(admissions.count { $0 == .folded } >= 115, "\(admissions)")
        let times = sentAt.withLock { $0 }
        #expect(times.map { $0 - start } == [.zero, .seconds(1), .seconds(2), .seconds(4)])
        // Each carries the earliest arrival it folded in: the first push after the one before was sent.
        #expect(sent.pushes().map { $0.1 - start } == [.zero, .milliseconds(25), .milliseconds(1025), .milliseconds(2025)])
        #expect(gate.waiting == 0)
    }

    @Test func allBranchesTogetherStayWithinTheBudgetAndNoneIsLost() {
        let sent = Sent()
        let start = ContinuousClock.now
        let limits = WebhookHintGate.Limits(burst: 5, perMinute: 60)
        let gate = WebhookHintGate(limits: limits, now: start) { hint in sent.hints.withLock { $0.append(hint) } }
        for index in 0..<20 {
            _ = gate.admit(.push(Self.push("acme/r\(index)"), receivedAt: start), now: start) { true }
        }
        #expect(sent.count == 5, "the burst")
        #expect(gate.waiting == 15)
        // One a second after the burst, the longest waiting first.
        for second in 1...10 { gate.sendDue(now: start + .seconds(second)) }
        #expect(sent.count == 15)
        for second in 11...20 { gate.sendDue(now: start + .seconds(second)) }
        #expect(sent.count == 20 && gate.waiting == 0)
        #expect(Set(sent.pushes().map(\.0.repositoryName.description)).count == 20)
    }

    @Test func pastTheBranchesItMayRememberAPushIsLeftToItsPollAndRoomComesBack() {
        let sent = Sent()
        let start = ContinuousClock.now
        let limits = WebhookHintGate.Limits(burst: 1, perMinute: 60, maximumKeys: 2)
        let gate = WebhookHintGate(limits: limits, now: start) { hint in sent.hints.withLock { $0.append(hint) } }
        func admit(_ name: String, at now: ContinuousClock.Instant) -> WebhookHintGate.Admission {
            gate.admit(.push(Self.push(name), receivedAt: now), now: now) { true }
        }
        #expect(admit("acme/r0", at: start) == .sent)
        #expect(admit("acme/r1", at: start) == .folded, "the budget is spent")
        #expect(admit("acme/r2", at: start) == .dropped, "two branches remembered already")
        gate.sendDue(now: start + .seconds(1))
        #expect(sent.count == 2 && gate.waiting == 0)
        // r0 was forgotten a spacing after its hint; r1 is remembered for its own spacing.
        #expect(admit("acme/r2", at: start + .seconds(1)) == .folded)
        gate.sendDue(now: start + .seconds(2))
        #expect(sent.pushes().map(\.0.repositoryName.description) == ["acme/r0", "acme/r1", "acme/r2"])
    }

    @Test func aPushNotMirroredIsNoHintAndItsAnswerIsRememberedForASpacing() {
        let sent = Sent()
        let start = ContinuousClock.now
        let gate = WebhookHintGate(now: start) { hint in sent.hints.withLock { $0.append(hint) } }
        var asked = 0
        for index in 0..<40 {
            let now = start + .milliseconds(25 * index)
            let admission = gate.admit(.push(Self.push("acme/other"), receivedAt: now), now: now) {
                asked += 1
                return false
            }
            #expect(admission == .notMirrored)
        }
        #expect(sent.count == 0 && asked == 1)
        _ = gate.admit(.push(Self.push("acme/other"), receivedAt: start), now: start + .seconds(2)) {
            asked += 1
            return false
        }
        #expect(asked == 2)
    }

    @Test func refusalsAreLoggedFirstThenSummedUpOnceAnInterval() {
        let log = WebhookRefusalLog(interval: .seconds(60))
        let start = ContinuousClock.now
        #expect(log.refused(now: start))
        for index in 1...500 { #expect(!log.refused(now: start + .milliseconds(index))) }
        #expect(log.summary(now: start + .seconds(30)) == nil)
        let summary = log.summary(now: start + .seconds(60))
        #expect(summary?.count == 500 && summary?.over == .seconds(60))
        #expect(log.summary(now: start + .seconds(200)) == nil, "nothing refused since")
        #expect(log.refused(now: start + .seconds(200)), "the first after a quiet interval is logged again")
    }

    @Test func logValuesEscapeEveryControlCharacter() {
        let value = "feature\u{1B}]0;owned\u{07}\u{1B}[31m\u{7F}\u{9B}\u{2028}x\ny"
        let escaped = KeyValueLogHandler.escape(value, quoteIfNeeded: true)
        #expect(escaped == #""feature\u{1B}]0;owned\u{7}\u{1B}[31m\u{7F}\u{9B}\u{2028}x\ny""#)
        #expect(!escaped.unicodeScalars.contains { $0.properties.generalCategory == .control })
        #expect(KeyValueLogHandler.escape("main", quoteIfNeeded: true) == "main")
    }
}
