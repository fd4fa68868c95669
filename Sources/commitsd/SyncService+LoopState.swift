import Foundation
import Logging
import MirrorCore

extension SyncService {
    /// What the scheduling loop carries from one event to the next whatever the
    /// store: the settings in force, their logger, the requests the token spent
    /// not yet written, and the last sync's line for systemd's STATUS.
    struct LoopState {
        private(set) var settings: DaemonSettings
        private(set) var logger: Logger
        /// What the token spent, for `commitsctl status --requests`.
        private var ledger: RequestLedger
        private var ledgerWritten = ContinuousClock.now
        /// The client's requests already counted in the metrics (syncs overlap: not per sync).
        var usageRecorded: GitHubClient.Usage
        private(set) var lastStatus = "no sync yet"
        /// The reader the metrics of finished syncs are read through, kept between syncs (opening
        /// one costs more than an idle poll's reads) and opened again every `readerReuse`.
        private var reader: (reader: any MirrorReading, opened: ContinuousClock.Instant)?

        init(settings: DaemonSettings, logger: Logger) {
            self.settings = settings
            self.logger = logger
            ledger = RequestLedger(store: settings.store, client: settings.client)
            usageRecorded = settings.client.usage
        }

        /// Writes the requests spent, when `now` or every `requestsWriteInterval`;
        /// one that fails is kept for the next write.
        mutating func writeSpentRequests(now: Bool) {
            guard now || .now - ledgerWritten >= SyncService.requestsWriteInterval else { return }
            do {
                try ledger.write(settings.client)
            } catch {
                logger.warning("could not record the requests spent; trying again later", metadata: ["error": "\(error)"])
            }
            ledgerWritten = .now
        }

        /// Takes a reloaded configuration's settings (the store stays the one
        /// opened at start), after writing what the old client spent.
        mutating func reload(_ new: DaemonSettings, logger: Logger) {
            writeSpentRequests(now: true)
            settings = new.store == settings.store ? new : new.keepingStore(settings.store)
            ledger = RequestLedger(store: settings.store, client: settings.client)
            usageRecorded = settings.client.usage
            self.logger = logger
        }

        /// The store's reader for metrics, `nil` (logged) when the store cannot be read.
        mutating func metricsReader(_ open: () -> (any MirrorReading)?) -> (any MirrorReading)? {
            if let reader, ContinuousClock.now - reader.opened < SyncService.readerReuse { return reader.reader }
            reader = open().map { ($0, ContinuousClock.now) }
            return reader?.reader
        }

        /// Notes how a sync ended for systemd's STATUS; `nil` when a shutdown interrupted it.
        mutating func status(after finished: Finished) -> String? {
            guard let line = SyncService.statusLine(finished.outcome, of: finished.repository.name) else { return nil }
            lastStatus = line
            return line
        }
    }

    /// The line systemd's STATUS shows after a sync; `nil` for one a shutdown interrupted.
    static func statusLine(_ outcome: Outcome, of repository: RepositoryName) -> String? {
        switch outcome {
        case .synced(let report): "last sync: \(report.summary)"
        case .stepEnded(let step): "last sync: \(repository) walked \(plural(step.pages, "page")); its walk resumes from there"
        case .skipped(let holder): "last sync: \(repository) skipped (another writer: \(holder))"
        case .failed(let message): "last sync: \(repository) failed: \(message)"
        case .rateLimited: "last sync: \(repository) rate-limited; paused until the reset"
        case .reserveHeld: "last sync: \(repository) held at the rate-limit reserve until the reset; polls go on"
        case .removed: "last sync: \(repository) not synced (removed from mirroring)"
        case .leaseLost: "last sync: \(repository) dropped (its claim was lost)"
        case .interrupted: nil
        }
    }

    /// Records a finished sync's metrics and systemd's STATUS, and writes the
    /// requests spent when due.
    func noteFinished(_ finished: Finished, state: inout LoopState) {
        let (settings, logger) = (state.settings, state.logger)
        let reader = state.metricsReader { openReader(settings: settings, logger: logger) }
        record(
            finished.outcome, of: finished.repository, reader: reader, settings: state.settings,
            counted: &state.usageRecorded, duration: ContinuousClock.now - finished.started)
        if let line = state.status(after: finished) { notifier.status(line) }
        state.writeSpentRequests(now: false)
    }

    /// Takes a reloaded configuration (SIGHUP) into the loop's state.
    func reload(_ new: DaemonSettings, state: inout LoopState) {
        state.reload(new, logger: makeLogger(logLevelOverride ?? new.configuration.logLevel))
        notifier.status("configuration reloaded; \(state.lastStatus)")
    }
}
