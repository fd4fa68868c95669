import Foundation
import MirrorModel
import Testing

/// Rules of the backend-free model: what a name may be, how a lease's length is
/// kept, and what its errors and targets say.
@Suite struct ModelRuleTests {
    @Test(arguments: [
        ("acme/widgets", "acme/widgets"), ("acme/widgets.git", "acme/widgets"), ("A-b_c.d/x.y-z_1", "A-b_c.d/x.y-z_1"),
        (String(repeating: "o", count: 100) + "/n", String(repeating: "o", count: 100) + "/n"),
    ])
    func repositoryNamesGitHubAllowsParse(text: String, parsed: String) {
        #expect(RepositoryName(parsing: text)?.description == parsed)
        #expect(RepositoryName(parsing: text)?.isGitHubName == true)
    }

    @Test(arguments: [
        "", "acme", "acme/", "/widgets", "a/b/c", "acme/wid gets", "acme/wïdgets", "acme/w*", "acme/.", "../x", "acme/.git",
        String(repeating: "o", count: 101) + "/n", "o/" + String(repeating: "n", count: 101), "acme/widgets#12",
    ])
    func otherTextIsNoRepositoryName(text: String) {
        #expect(RepositoryName(parsing: text) == nil)
    }

    @Test func aStoredNameMayCarryTheGitHubIdOfTheRepositoryThatHadItFirst() throws {
        let name = RepositoryName(owner: "acme", name: "widgets")
        let stored = RepositoryName.disambiguated(name, githubID: 42)
        #expect(stored == "acme/widgets#42")
        let parsed = try #require(RepositoryName(parsingStored: stored))
        #expect(parsed.owner == "acme" && parsed.name == "widgets#42" && !parsed.isGitHubName)
        #expect(RepositoryName(parsingStored: "acme/widgets") == name)
        for refused in ["acme/widgets#", "acme/widgets#0", "acme/widgets#-1", "acme/widgets#042", "acme/widgets#x", "acme#1/x"] {
            #expect(RepositoryName(parsingStored: refused) == nil, "\(refused)")
        }
    }

    @Test func aLeaseIsKeptInWholeMillisecondsNeverBelowZero() {
        #expect(Duration.seconds(2).leaseMilliseconds == 2_000)
        #expect(Duration.milliseconds(1_500).leaseMilliseconds == 1_500)
        #expect(Duration.microseconds(1_999).leaseMilliseconds == 1)
        #expect(Duration.nanoseconds(999_999).leaseMilliseconds == 0)
        #expect(Duration.seconds(-3).leaseMilliseconds == 0)
        #expect(Duration.seconds(86_400 * 365).leaseMilliseconds == 31_536_000_000)
    }

    @Test func aTargetAndItsLeaseSayWhichBranch() {
        let repository = RepositoryName(owner: "acme", name: "widgets")
        #expect(SyncTarget(repository: repository).description == "acme/widgets (default branch)")
        let release = SyncTarget(repository: repository, branch: "release/1.0")
        #expect(release.description == "acme/widgets (branch release/1.0)")
        let lease = SyncLease(target: release, owner: "daemon-2", generation: 7, expiresAt: Date(timeIntervalSince1970: 0))
        #expect(lease.description == "acme/widgets (branch release/1.0) held by daemon-2, lease generation 7")
        #expect(SyncTarget(repository: repository) != release)
    }

    struct BackendFailure: Error, CustomStringConvertible {
        var description: String { "backend error 11 (database disk image is malformed) in SELECT" }
    }

    @Test func storeErrorsStateTheFactWithTheBackendsMessageAlone() {
        let underlying = UnderlyingError(BackendFailure(), message: "database disk image is malformed")
        #expect(
            StoreError.cannotOpen(path: "/s.sqlite", underlying: underlying).description
                == "cannot open the store /s.sqlite: database disk image is malformed; check the path and its permissions")
        #expect(StoreError.backend(underlying).description == "store error: \(BackendFailure())")
        #expect(StoreError.busy(path: "/s.sqlite").description.hasPrefix("the store /s.sqlite is locked by another writer"))
        let newer = StoreError.newerSchema(path: "/s.sqlite", found: 9, known: 8).description
        #expect(newer.contains("schema version 9, newer than this program knows (8)") && newer.contains("left untouched"))
        let withoutCopy = StoreError.migrationFailed(path: "/s", from: 7, to: 8, backup: nil, reason: "no room").description
        let withCopy = StoreError.migrationFailed(path: "/s", from: 7, to: 8, backup: "/s.bak", reason: "no room").description
        #expect(withoutCopy.contains("from schema version 7 to 8 failed: no room") && !withoutCopy.contains("copy"))
        #expect(withCopy == withoutCopy + "; a copy made before the upgrade is at /s.bak")
        let lease = SyncLease(
            target: SyncTarget(repository: RepositoryName(owner: "acme", name: "w")), owner: "d1", generation: 3,
            expiresAt: Date(timeIntervalSince1970: 0))
        let lost = StoreError.leaseLost(lease).description
        #expect(lost.hasPrefix("the claim on acme/w (default branch) by d1 (lease generation 3) is lost"))
        #expect(lost.hasSuffix("nothing was written under it"))
    }

    @Test func whatAFailureIsDoesNotDependOnTheBackend() {
        #expect(StoreFailure.lockTimeout(holders: "pid 12") == .lockTimeout(holders: "pid 12"))
        #expect(StoreFailure.lockTimeout(holders: nil) != .lockTimeout(holders: "pid 12"))
        struct Reporting: StoreFailureReporting { var storeFailure: StoreFailure { .full } }
        #expect(Reporting().storeFailure == .full && !Reporting().includesRemedy)
    }

    @Test func aTestTimingIsAWholeNumberOfSecondsOrUnset() throws {
        let name = TestTimings.batchSeconds
        #expect(try EnvironmentVariables([:]).testSeconds(name) == nil)
        #expect(try EnvironmentVariables([name: ""]).testSeconds(name) == nil)
        #expect(try EnvironmentVariables([name: "1"]).testSeconds(name) == 1)
        #expect(try EnvironmentVariables([name: "86400"]).testSeconds(name) == 86_400)
        for refused in ["0", "-1", "1.5", "86401", "ten", " 3"] {
            let error = #expect(throws: TestTimingError.self) { try EnvironmentVariables([name: refused]).testSeconds(name) }
            #expect(error?.variable == name && error?.value == refused)
        }
        let error = #expect(throws: TestTimingError.self) { try EnvironmentVariables([name: "ten"]).testSeconds(name) }
        #expect(
            error?.description
                == "$COMMITS_MIRROR_TEST_BATCH_SECONDS must be a whole number of seconds from 1 to 86400, not \"ten\"; it is for tests: unset it"
        )
    }
}
