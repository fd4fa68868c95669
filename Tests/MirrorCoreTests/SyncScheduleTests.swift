import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore

/// commitsd's schedule (`SyncSchedule`): when each repository is synced next.
@Suite struct SyncScheduleTests {
    func configuration(_ yaml: String) throws -> MirrorConfiguration {
        try MirrorConfiguration.parse(yaml: yaml, source: "cfg.yaml")
    }

    @Test func repositoriesAreSpreadOverTheInterval() throws {
        let config = try configuration("default_interval: 90s\nrepositories: [a/one, a/two, a/three]\n")
        let start = ContinuousClock.now
        let all = Set(config.repositories.map(\.key))
        var plan = SyncSchedule(configuration: config, synced: all, now: start)
        #expect(plan.jobs.map { $0.due - start } == [.zero, .seconds(30), .seconds(60)])
        // After a sync that took 40 s, `one` keeps its slot on the 90 s grid.
        plan.completed(config.repositories[0], now: start + .seconds(40))
        #expect(plan.jobs[0].due - start == .seconds(90))
        // A sync that overran whole intervals skips the missed slots.
        plan.completed(config.repositories[1], now: start + .seconds(250))
        #expect(plan.jobs[1].due - start == .seconds(300))
        #expect(plan.next?.repository.name.description == "a/three")
    }

    @Test func neverSyncedRepositoriesGoFirst() throws {
        let config = try configuration("default_interval: 1m\nrepositories: [a/one, a/two]\n")
        let start = ContinuousClock.now
        var plan = SyncSchedule(configuration: config, synced: ["a/one@"], now: start)
        #expect(plan.jobs.map { $0.due - start } == [.zero, .zero])
        // After its first sync, a/two joins its spread slot.
        plan.completed(config.repositories[1], now: start + .seconds(1))
        #expect(plan.jobs[1].due - start == .seconds(30))
    }

    /// Syncs side by side: a repository whose sync is under way is never handed out again
    /// until it ends, and the others keep coming due meanwhile.
    @Test func aRunningSyncIsNotHandedOutAgainUntilItEnds() throws {
        let config = try configuration("default_interval: 10s\nrepositories: [a/one, a/two]\n")
        let start = ContinuousClock.now
        var plan = SyncSchedule(configuration: config, synced: Set(config.repositories.map(\.key)), now: start)
        plan.started(config.repositories[0])
        #expect(plan.running == ["a/one@"])
        #expect(plan.next?.repository.name.description == "a/two")
        #expect(plan.next(where: { $0.repository.name.description != "a/two" }) == nil)
        plan.started(config.repositories[1])
        #expect(plan.next == nil)
        plan.completed(config.repositories[1], now: start + .seconds(1))
        #expect(plan.next?.repository.name.description == "a/two" && plan.next?.due == start + .seconds(5))
        plan.requeue(config.repositories[0], now: start + .seconds(2))
        #expect(plan.running.isEmpty && plan.next?.repository.name.description == "a/one")
    }

    /// A daemon asks for the next job after every sync, of thousands: `next` asks
    /// `eligible` only of a job that would be the answer, and the earliest-due
    /// job among equals is the one configured first, or requeued last.
    @Test func nextAsksOnlyOfTheJobsThatWouldBeTheAnswer() throws {
        let names = (1...50).map { "a/r\($0)" }
        let config = try configuration("default_interval: 50s\nrepositories: [\(names.joined(separator: ", "))]\n")
        let start = ContinuousClock.now
        var plan = SyncSchedule(configuration: config, synced: Set(config.repositories.map(\.key)), now: start)
        var asked: [String] = []
        let first = plan.next { job in
            asked.append(job.repository.name.description)
            return true
        }
        #expect(first?.repository.name.description == "a/r1" && asked == ["a/r1"])
        asked = []
        // The two earliest refused: the third is the answer, after asking of those three only.
        let third = plan.next { job in
            asked.append(job.repository.name.description)
            return !["a/r1", "a/r2"].contains(job.repository.name.description)
        }
        #expect(third?.repository.name.description == "a/r3")
        #expect(asked.count < names.count && asked.contains("a/r3"))

        // Requeued, a job goes behind every job due at the same time.
        plan.requeue(config.repositories[0], now: start)
        plan.requeue(config.repositories[1], now: start)
        #expect(plan.next?.repository.name.description == "a/r1")
        plan.started(config.repositories[0])
        #expect(plan.next?.repository.name.description == "a/r2")
        plan.requeue(config.repositories[0], now: start)
        #expect(plan.next?.repository.name.description == "a/r2", "a/r1 went behind a/r2, requeued before it")
    }

    @Test func aJobsRepositoryKeyIsItsKeyUpToTheFirstAt() {
        #expect(SyncSchedule.Job.repositoryKey(ofKey: "acme/widgets@") == "acme/widgets")
        #expect(SyncSchedule.Job.repositoryKey(ofKey: "acme/widgets@release@2") == "acme/widgets")
    }

    @Test func pauseHoldsEverythingBack() throws {
        let config = try configuration("default_interval: 1m\nrepositories: [a/one]\n")
        let start = ContinuousClock.now
        var plan = SyncSchedule(configuration: config, synced: [], now: start)
        plan.pause(until: start + .seconds(600))
        #expect(plan.next?.due == start + .seconds(600))
    }

    @Test func reloadKeepsAddsAndDrops() throws {
        let old = try configuration("default_interval: 10m\nrepositories: [a/one, a/two]\n")
        let start = ContinuousClock.now
        var plan = SyncSchedule(configuration: old, synced: Set(old.repositories.map(\.key)), now: start)
        let new = try configuration(
            """
            default_interval: 10m
            repositories:
              - name: a/two
                interval: 1m
              - a/three
            """)
        plan.apply(new, now: start + .seconds(5))
        #expect(plan.jobs.map(\.repository.name.description) == ["a/two", "a/three"])
        // a/two was due at 5m; on its 1m grid (anchored at 5m) nothing earlier is due: it stays.
        #expect(plan.jobs[0].due - start == .seconds(300))
        #expect(plan.jobs[0].interval == .seconds(60))
        #expect(plan.jobs[1].due - start == .seconds(5))
    }
}

/// Adaptive polling: each repository's interval follows its activity (`PollingPolicy`).
@Suite struct AdaptivePollingTests {
    let policy = PollingPolicy.adaptive(minimum: .seconds(60), maximum: .seconds(6 * 3600))

    @Test func theIntervalIsHalfTheQuietTimeWithinTheRange() {
        func interval(quiet: Duration?) -> Duration { policy.interval(quietFor: quiet, moved: false) }
        #expect(interval(quiet: .seconds(3600)) == .seconds(1800))
        #expect(interval(quiet: .seconds(30)) == .seconds(60), "never below the minimum")
        #expect(interval(quiet: .seconds(365 * 86_400)) == .seconds(6 * 3600), "never above the maximum")
        #expect(interval(quiet: nil) == .seconds(6 * 3600), "an empty repository is polled at the maximum")
        // A branch that just moved is polled at the minimum, however old its head's date.
        #expect(policy.interval(quietFor: .seconds(365 * 86_400), moved: true) == .seconds(60))
        #expect(policy.minimum == .seconds(60))
        #expect(PollingPolicy.fixed(.seconds(300)).interval(quietFor: .seconds(86_400), moved: false) == .seconds(300))
        #expect(PollingPolicy.fixed(.seconds(300)).interval(quietFor: nil, moved: true) == .seconds(300))
    }

    @Test func theHeadsAgeComesFromItsCommitterDate() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(PollActivity(head: "a", committedAt: now.addingTimeInterval(-7200), now: now).headAge == .seconds(7200))
        #expect(PollActivity(head: "a", committedAt: now.addingTimeInterval(500), now: now).headAge == .zero, "the future counts as now")
        #expect(PollActivity(head: nil, committedAt: nil, now: now).headAge == nil)
    }

    @Test func theConfigurationSaysWhoAdaptsAndWhoStaysFixed() throws {
        let config = try MirrorConfiguration.parse(
            yaml: """
                default_interval: 10m
                min_interval: 1m
                max_interval: 6h
                repositories:
                  - a/adaptive
                  - name: a/fixed
                    interval: 5m
                """, source: "cfg.yaml")
        #expect(config.pollingPolicy(for: config.repositories[0]) == .adaptive(minimum: .seconds(60), maximum: .seconds(6 * 3600)))
        #expect(config.pollingPolicy(for: config.repositories[1]) == .fixed(.seconds(300)))
        // Without a range, default_interval is both bounds: fixed, as before.
        let plain = try MirrorConfiguration.parse(yaml: "default_interval: 10m\nrepositories: [a/one]\n", source: "cfg.yaml")
        #expect(plain.pollingPolicy(for: plain.repositories[0]) == .fixed(.seconds(600)))
        // Either bound alone takes default_interval as the other.
        let upTo = try MirrorConfiguration.parse(
            yaml: "default_interval: 10m\nmax_interval: 2h\nrepositories: [a/one]\n", source: "cfg.yaml")
        #expect(upTo.pollingPolicy(for: upTo.repositories[0]) == .adaptive(minimum: .seconds(600), maximum: .seconds(7200)))
    }

    @Test(arguments: [
        (
            "min_interval: 2h\nmax_interval: 1h\nrepositories: [a/one]\n",
            "cfg.yaml:1: min_interval: the shortest interval 2h (min_interval) is longer than the longest, 1h (max_interval); expected min_interval no longer than max_interval"
        ),
        (
            "min_interval: 1h\nrepositories: [a/one]\n",
            "cfg.yaml:1: min_interval: the shortest interval 1h (min_interval) is longer than the longest, 15m (max_interval, which defaults to default_interval); expected min_interval no longer than max_interval"
        ),
        (
            "max_interval: 5m\nrepositories: [a/one]\n",
            "cfg.yaml:1: max_interval: the shortest interval 15m (min_interval, which defaults to default_interval) is longer than the longest, 5m (max_interval); expected min_interval no longer than max_interval"
        ),
        (
            "max_interval: 2d\nrepositories: [a/one]\n",
            "cfg.yaml:1: max_interval: '2d' is not a duration; expected a duration such as 90s, 15m, 1h or 1h30m (or a number of seconds)"
        ),
        (
            "max_interval: 25h\nrepositories: [a/one]\n",
            "cfg.yaml:1: max_interval: 25h is longer than a day; expected at most 24h, so a dormant repository is still polled daily"
        ),
        (
            "min_interval: 0\nrepositories: [a/one]\n",
            "cfg.yaml:1: min_interval: '0' is not a duration; expected a duration such as 90s, 15m, 1h or 1h30m (or a number of seconds)"
        ),
    ])
    func badRangesAreOneLine(yaml: String, expected: String) {
        #expect(throws: ConfigurationError.self) { try MirrorConfiguration.parse(yaml: yaml, source: "cfg.yaml") }
        do {
            _ = try MirrorConfiguration.parse(yaml: yaml, source: "cfg.yaml")
        } catch {
            #expect("\(error)" == expected)
        }
    }

    /// With an injected clock: a dormant repository slows down to the maximum,
    /// one that moves is due again within the minimum, and a repository that
    /// stops moving slows down step by step, whatever its commits' dates.
    @Test func theScheduleFollowsEachRepositorysActivity() throws {
        let config = try MirrorConfiguration.parse(
            yaml: "min_interval: 1m\nmax_interval: 1h\nrepositories: [a/busy, a/dormant]\n", source: "cfg.yaml")
        let start = ContinuousClock.now
        let dormant = PollActivity(head: "d1", headAge: .seconds(30 * 86_400))
        var plan = SyncSchedule(
            configuration: config, synced: ["a/busy@", "a/dormant@"],
            activity: ["a/busy@": PollActivity(head: "b0", headAge: .seconds(120)), "a/dormant@": dormant], now: start)
        #expect(plan.jobs.map(\.interval) == [.seconds(60), .seconds(3600)])
        // Spread on each one's own interval: the second of two starts half its interval in.
        #expect(plan.jobs.map { $0.due - start } == [.zero, .seconds(1800)])

        // An hour of polls: busy has a new head at every poll (its commits dated
        // years ago, as a pushed old branch is), dormant never moves.
        var now = start
        var polls: [String: Int] = [:]
        while let job = plan.next, job.due < start + .seconds(3600) {
            now = max(now, job.due) + .seconds(1)  // each poll takes a second
            let name = job.repository.name.description
            polls[name, default: 0] += 1
            let seen = name == "a/busy" ? PollActivity(head: "b\(polls[name]!)", headAge: .seconds(400 * 86_400)) : dormant
            plan.completed(job.repository, now: now, activity: seen)
        }
        #expect(polls["a/busy"] == 60, "\(polls)")
        #expect(polls["a/dormant"] == 1, "\(polls)")

        // Busy stops moving: the interval grows with the time since its last move, up to the maximum.
        let busy = config.repositories[0]
        let still = PollActivity(head: "b60", headAge: .seconds(400 * 86_400))
        var intervals: [Duration] = []
        while intervals.last != .seconds(3600) && intervals.count < 40 {
            now = plan.jobs[0].due + .seconds(1)
            plan.completed(busy, now: now, activity: still)
            intervals.append(plan.jobs[0].interval)
        }
        #expect(intervals.first == .seconds(60))
        #expect(zip(intervals, intervals.dropFirst()).allSatisfy { $0 <= $1 }, "\(intervals)")
        #expect(intervals.last == .seconds(3600) && intervals.count < 30, "\(intervals)")
        #expect(plan.jobs[0].due > now && plan.jobs[0].due <= now + .seconds(3600))
        // Then moves: due again within the minimum.
        plan.completed(busy, now: now, activity: PollActivity(head: "b61", headAge: .zero))
        #expect(plan.jobs[0].due > now && plan.jobs[0].due <= now + .seconds(60))
        // A failed poll (nothing seen) keeps the interval.
        plan.completed(busy, now: now, activity: nil)
        #expect(plan.jobs[0].interval == .seconds(60))
    }

    /// A first sync is not a move: its head's date decides.
    @Test func aFirstSyncIsNotAMove() throws {
        let config = try MirrorConfiguration.parse(
            yaml: "min_interval: 1m\nmax_interval: 1h\nrepositories: [a/old, a/fresh, a/empty]\n", source: "cfg.yaml")
        let start = ContinuousClock.now
        var plan = SyncSchedule(configuration: config, synced: [], now: start)
        #expect(plan.jobs.map(\.interval) == [.seconds(60), .seconds(60), .seconds(60)], "unknown: the minimum")
        plan.completed(config.repositories[0], now: start, activity: PollActivity(head: "o", headAge: .seconds(86_400)))
        plan.completed(config.repositories[1], now: start, activity: PollActivity(head: "f", headAge: .seconds(240)))
        plan.completed(config.repositories[2], now: start, activity: PollActivity(head: nil, headAge: nil))
        #expect(plan.jobs.map(\.interval) == [.seconds(3600), .seconds(120), .seconds(3600)])
    }

    /// A walk taken in steps never delays a poll that is due by more than one step.
    @Test func aRequeuedStepGoesBehindThePollsAlreadyDue() throws {
        let config = try MirrorConfiguration.parse(yaml: "default_interval: 1m\nrepositories: [a/huge, a/small]\n", source: "cfg.yaml")
        let start = ContinuousClock.now
        var plan = SyncSchedule(configuration: config, synced: ["a/small@"], now: start)
        // huge (never synced) is due now; small's slot is 30 s in.
        #expect(plan.next?.repository.name.description == "a/huge")
        var order: [String] = []
        var now = start
        // Each step of huge takes 7 s; small's poll takes 1 s.
        for _ in 0..<16 {
            guard let job = plan.next else { break }
            now = max(now, job.due)
            order.append(job.repository.name.description)
            if job.repository.name.description == "a/huge" {
                now += .seconds(7)
                plan.requeue(job.repository, now: now)
            } else {
                // Polled no later than one step after its slot.
                #expect(now - job.due < .seconds(7))
                now += .seconds(1)
                plan.completed(job.repository, now: now)
            }
        }
        #expect(order.filter { $0 == "a/small" }.count == 2, "\(order)")
        #expect(order.firstIndex(of: "a/small") == 5, "\(order)")
    }
}
