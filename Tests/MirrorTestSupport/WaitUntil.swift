import Foundation

// The one way tests wait for something another process, thread or task does:
// poll a condition against a deadline. Never a fixed delay that "lets it happen".

/// Polls `condition` until it holds or `timeout` passes; whether it held.
@discardableResult
public func waitUntil(
    timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(50),
    _ condition: () throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try condition()
}

/// `waitUntil` for a watcher on its own thread (see `onThread`): there a busy
/// cooperative pool cannot delay the poll past the moment it waits for.
@discardableResult
public func waitUntilBlocking(
    timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(5),
    _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: interval.timeInterval)
    }
    return try condition()
}

/// Whether `condition` held at every poll for the whole of `duration`: how a
/// test shows something does *not* happen (a pause holds, a process stays up).
/// The window is the claim being tested, not a delay that lets something happen.
public func staysTrue(
    for duration: Duration, every interval: Duration = .milliseconds(50),
    _ condition: () throws -> Bool
) async rethrows -> Bool {
    let end = ContinuousClock.now + duration
    while ContinuousClock.now < end {
        guard try condition() else { return false }
        try? await Task.sleep(for: interval)
    }
    return try condition()
}
