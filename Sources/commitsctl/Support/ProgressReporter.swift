import Foundation
import MirrorCore

/// Progress of long syncs on stderr: redrawn in place on a terminal, a plain
/// line every 10 seconds otherwise (logs, cron mail).
final class ProgressReporter {
    private let interactive = Terminal.standardErrorIsTerminal
    /// Off when stderr is not a terminal unless `--progress`: cron mails only errors.
    private let enabled: Bool

    init(enabled: Bool) {
        self.enabled = enabled
    }
    private var lastPrinted = ContinuousClock.now
    private var drewLine = false

    func report(_ progress: SyncProgress) {
        SyncInterruption.note(progress)
        guard enabled else { return }
        let now = ContinuousClock.now
        let interval: Duration = interactive ? .milliseconds(200) : .seconds(10)
        guard now - lastPrinted >= interval else { return }
        lastPrinted = now
        let line = Self.describe(progress)
        if interactive {
            Terminal.writeError("\r\u{1B}[K" + line)
            drewLine = true
        } else {
            Terminal.writeError(line + "\n")
        }
    }

    func finish() {
        if drewLine { Terminal.writeError("\r\u{1B}[K") }
    }

    static func describe(_ progress: SyncProgress) -> String {
        let seconds = max(0.001, Double(progress.elapsed.components.seconds) + Double(progress.elapsed.components.attoseconds) / 1e18)
        let rate = Double(progress.commitsStored) / seconds
        var text = "\(progress.repository): page \(progress.pagesDone)"
        if let total = progress.pagesTotal, total >= progress.pagesDone {
            text += " of \(total)"
            let pagesPerSecond = Double(progress.pagesDone) / seconds
            if pagesPerSecond > 0 {
                text += String(format: ", ETA %.0f s", Double(total - progress.pagesDone) / pagesPerSecond)
            }
        }
        text += ", \(plural(progress.commitsStored, "commit"))" + String(format: ", %.0f commits/s", rate)
        return text
    }
}
