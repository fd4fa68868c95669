import Foundation
import Testing

@testable import MirrorCore

/// `name` and `lease_duration`: what several daemons sharing one PostgreSQL
/// store are told apart by and how long their claims last (docs/SCALING.md).
@Suite struct DaemonNameConfigurationTests: ConfigurationParsing {
    @Test func defaultsAreNoNameAndASixtySecondLease() throws {
        let configuration = try parse("repositories: [a/b]\n")
        #expect(configuration.name == nil)
        #expect(configuration.leaseDuration == .seconds(60))
    }

    @Test func nameAndLeaseAreRead() throws {
        let configuration = try parse("name: mirror-2@eu.west\nlease_duration: 2m\nrepositories: [a/b]\n")
        #expect(configuration.name == "mirror-2@eu.west")
        #expect(configuration.leaseDuration == .seconds(120))
        #expect(try parse("lease_duration: 5s\nrepositories: [a/b]\n").leaseDuration == .seconds(5))
    }

    @Test func aLeaseUnderFiveSecondsIsOneLine() {
        #expect(
            message("lease_duration: 4s\nrepositories: [a/b]\n")
                == "cfg.yaml:1: lease_duration: 4s is shorter than 5s; expected a duration of at least 5s, e.g. 60s (the default)")
        #expect(
            message("lease_duration: soon\nrepositories: [a/b]\n")?.hasPrefix("cfg.yaml:1: lease_duration: 'soon' is not a duration")
                == true)
    }

    @Test func aNameWithSpacesOrControlsIsOneLine() {
        let expected = "expected up to 100 letters, digits or . _ - @ : characters naming this daemon, e.g. mirror-1"
        #expect(message("name: my mirror\nrepositories: [a/b]\n") == "cfg.yaml:1: name: 'my mirror' is not a daemon name; \(expected)")
        #expect(message("name: \(String(repeating: "x", count: 101))\nrepositories: [a/b]\n")?.contains("is not a daemon name") == true)
        #expect(message("name:\nrepositories: [a/b]\n") == "cfg.yaml:1: name: has no value; \(expected)")
    }

    @Test func theDefaultNameIsTheHostPlusTheInstance() {
        #expect(DaemonName.resolve(configured: "set", hostName: "box", environment: ["COMMITSD_INSTANCE": "x"]) == "set")
        #expect(DaemonName.resolve(configured: nil, hostName: "box.example.org", environment: [:]) == "box")
        #expect(DaemonName.resolve(configured: nil, hostName: "box", environment: ["COMMITSD_INSTANCE": "eu"]) == "box@eu")
        #expect(DaemonName.resolve(configured: nil, hostName: "box", environment: ["COMMITSD_INSTANCE": "has space"]) == "box")
        #expect(DaemonName.resolve(configured: nil, hostName: "", environment: [:]) == "commitsd")
    }

    @Test func aChangedNameOrLeaseIsAReloadLine() throws {
        let old = try parse("repositories: [a/b]\n")
        let new = try parse("name: m1\nlease_duration: 30s\nrepositories: [a/b]\n")
        #expect(old.changes(to: new) == ["name: (not set) -> m1", "lease_duration: 1m -> 30s"])
    }
}
