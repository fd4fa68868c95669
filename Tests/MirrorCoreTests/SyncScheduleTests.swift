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
