import MirrorCore
import Testing

@Suite struct MallocArenasTests {
    /// The daemon trims after each recorded sync, which may come many times a
    /// second: only the first call of an interval walks the free lists.
    @Test func aTrimWithinTheIntervalOfTheLastIsSkipped() {
        #expect(MallocArenas.trim(atMostEvery: .zero))
        #expect(!MallocArenas.trim(atMostEvery: .seconds(3600)))
        #expect(MallocArenas.trim(atMostEvery: .zero))
    }
}
