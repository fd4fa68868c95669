import Foundation
import MirrorCore
import Synchronization

/// Ctrl-C during `sync`: one line saying what was kept and that the next run
/// resumes, then exit status 130. Stopping at once is safe: every page is
/// stored with its checkpoint in one transaction, so an unfinished page simply
/// rolls back.
enum SyncInterruption {
    private static let latest = Mutex<SyncProgress?>(nil)
    nonisolated(unsafe) private static var source: (any DispatchSourceSignal)?

    /// Called with every progress report of the running sync.
    static func note(_ progress: SyncProgress) {
        latest.withLock { $0 = progress }
    }

    static func install() {
        signal(SIGINT, SIG_IGN)
        let signalSource = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        signalSource.setEventHandler {
            let progress = latest.withLock { $0 }
            let clear = Terminal.standardErrorIsTerminal ? "\r\u{1B}[K" : ""
            Terminal.writeError(clear + "commitsctl: interrupted: " + message(progress) + "\n")
            _exit(130)
        }
        signalSource.resume()
        source = signalSource
    }

    static func message(_ progress: SyncProgress?) -> String {
        guard let progress, progress.pagesDone > 0 else {
            return "nothing new was stored; the next sync starts over where the last one stopped"
        }
        return
            "kept \(plural(progress.commitsStored, "commit")) from \(plural(progress.pagesDone, "page")) of \(progress.repository); the next sync resumes from there"
    }
}
