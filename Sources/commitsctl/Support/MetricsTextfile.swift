import Foundation
import MirrorCore
import Prometheus

/// `sync --metrics-textfile PATH`: the run's metrics in Prometheus text for
/// node_exporter's textfile collector, written to a temporary file beside PATH
/// and renamed over it, so the collector never reads half a file.
struct MetricsTextfile {
    let path: String
    let registry = PrometheusCollectorRegistry()
    var metrics: MirrorMetrics {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[MirrorMetrics.syncDurationName] = MirrorMetrics.syncDurationBuckets
        return MirrorMetrics(factory: factory)
    }

    func write() throws {
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        let temporary = path + ".\(getpid()).tmp"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(bytes),
                attributes: [.posixPermissions: 0o644])
        else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary])
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw MetricsTextfileError(path: path, reason: reason)
        }
    }
}

struct MetricsTextfileError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "cannot write the metrics textfile \(path): \(reason); check that its directory exists and is writable" }
}
