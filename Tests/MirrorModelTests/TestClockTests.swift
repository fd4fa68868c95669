import Foundation
import MirrorModel
import MirrorTestSupport
import Testing

/// `TestClock`: the wall clock plus the seconds a test's file holds, followed
/// as the file changes, and refused in one line when the file holds no whole
/// number of seconds.
@Suite struct TestClockTests {
    @Test func theClockIsAheadByWhatTheFileHoldsAsItChanges() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("clock", "0\n")
        #expect(try TestClock.configured(in: [:]) == nil)
        #expect(try TestClock.configured(in: [TestTimings.clockFile: ""]) == nil)
        let clock = try #require(try TestClock.configured(in: [TestTimings.clockFile: file]))
        #expect(abs(clock.now().timeIntervalSinceNow) < 60)
        try "7200".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(abs(clock.now().timeIntervalSinceNow - 7200) < 60)
        // A file caught while it is replaced keeps the clock where it was.
        try "".write(toFile: file, atomically: false, encoding: .utf8)
        #expect(abs(clock.now().timeIntervalSinceNow - 7200) < 60)
    }

    @Test func aFileHoldingNoWholeNumberOfSecondsIsRefusedInOneLine() throws {
        let directory = try TemporaryDirectory()
        for (name, text) in [("negative", "-5"), ("fraction", "1.5"), ("words", "an hour"), ("empty", "")] {
            let file = try directory.write(name, text)
            let error = #expect(throws: TestClockError.self) { try TestClock.configured(in: [TestTimings.clockFile: file]) }
            #expect(error?.path == file)
        }
        let missing = directory.path("missing")
        let error = #expect(throws: TestClockError.self) { try TestClock.configured(in: [TestTimings.clockFile: missing]) }
        #expect(
            error?.description
                == "$COMMITS_MIRROR_TEST_CLOCK_FILE must name a file holding a whole number of seconds, 0 or more, to add to the clock; \"\(missing)\" does not; it is for tests: unset it"
        )
    }
}
