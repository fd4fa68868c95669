import Foundation
import Synchronization

/// A wall clock a test moves by hand. Given to a client and to the simulator
/// alike, it takes a token or an expiry past its end at once, so no test waits
/// out a lifetime and no verdict depends on how loaded the machine is.
public final class ManualClock: Sendable {
    private let value: Mutex<Date>

    public init(startingAt start: Date = Date()) {
        value = Mutex(start)
    }

    public var now: Date { value.withLock { $0 } }

    public func advance(by seconds: TimeInterval) { value.withLock { $0 += seconds } }
}
