import Foundation
import MirrorTestSupport
import Synchronization
import Testing

@testable import MirrorCore

/// The installation token held in memory: when it is due, one mint however
/// many ask, and a refused one forgotten (these are unit tests of the cache;
/// AppAuthenticationTests run it against github-sim).
@Suite struct InstallationTokenTests {
    /// A count the mints share (a `Mutex` cannot be captured by the closures themselves).
    final class Count: Sendable {
        private let value = Mutex(0)
        func next() -> Int {
            value.withLock {
                $0 += 1; return $0
            }
        }
        var current: Int { value.withLock { $0 } }
    }

    @Test func anHourLongTokenIsRefreshedFiveMinutesAheadAndASecondsLongOneAQuarterAhead() {
        let now = Date()
        let hour = InstallationToken(value: "ghs_x", expiresAt: now.addingTimeInterval(3600), receivedAt: now)
        #expect(hour.refreshAt == now.addingTimeInterval(3300))
        #expect(!hour.isDue(at: now.addingTimeInterval(3299)) && hour.isDue(at: now.addingTimeInterval(3300)))
        let short = InstallationToken(value: "ghs_y", expiresAt: now.addingTimeInterval(20), receivedAt: now)
        #expect(short.refreshAt == now.addingTimeInterval(15))
        #expect("\(short)".hasPrefix("<installation token expiring"))
    }

    static func app() throws -> GitHubApp {
        let key = try GitHubAppKey(pem: AppKeys.pem(try AppKeys.generate(), .pkcs1), source: "test")
        return GitHubApp(appID: 1, installation: .id(2), key: key)
    }

    @Test func callersArrivingDuringAMintShareIt() async throws {
        let app = try Self.app()
        let mints = Count()
        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await app.token {
                        _ = mints.next()
                        try await Task.sleep(for: .milliseconds(200))
                        return InstallationToken(value: "ghs_shared", expiresAt: Date().addingTimeInterval(3600), receivedAt: Date())
                    }.value
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values == Array(repeating: "ghs_shared", count: 8))
        #expect(mints.current == 1 && app.tokensMinted == 1)
    }

    @Test func aDueTokenIsMintedAgainAndARefusedOneIsForgotten() async throws {
        let clock = ManualClock(startingAt: Date(timeIntervalSince1970: 1_800_000_000))
        let key = try GitHubAppKey(pem: AppKeys.pem(try AppKeys.generate(), .pkcs1), source: "test")
        let app = GitHubApp(appID: 1, installation: .id(2), key: key, now: { clock.now })
        let counter = Count()
        let mint: @Sendable () async throws -> InstallationToken = {
            let number = counter.next()
            // Due 3 s after it was received: a quarter of its 4 s ahead of its expiry.
            return InstallationToken(value: "ghs_\(number)", expiresAt: clock.now.addingTimeInterval(4), receivedAt: clock.now)
        }
        #expect(try await app.token(minting: mint).value == "ghs_1")
        clock.advance(by: 2.5)
        #expect(try await app.token(minting: mint).value == "ghs_1")
        clock.advance(by: 0.5)
        #expect(try await app.token(minting: mint).value == "ghs_2")
        app.refused("ghs_someOlderOne")
        #expect(try await app.token(minting: mint).value == "ghs_2")
        app.refused("ghs_2")
        #expect(try await app.token(minting: mint).value == "ghs_3")
        #expect(app.tokensMinted == 3)
    }

    @Test func aFailedMintIsNotCachedAndTheNextCallerTriesAgain() async throws {
        struct Refused: Error {}
        let app = try Self.app()
        await #expect(throws: Refused.self) { try await app.token { throw Refused() } }
        let token = try await app.token {
            InstallationToken(value: "ghs_ok", expiresAt: Date().addingTimeInterval(3600), receivedAt: Date())
        }
        #expect(token.value == "ghs_ok")
    }
}
