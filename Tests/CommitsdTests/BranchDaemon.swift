import GitHubSim
import MirrorTestSupport

extension DaemonProcess {
    /// commitsd mirroring `branches` (the configuration's YAML: `[main, "release/*"]`,
    /// `"*"`) of `repository` over REST, polled every `interval` (nil: hourly, the
    /// default), logging at info: what the branch tests start from.
    static func mirroringBranches(
        _ branches: String, of repository: String = "acme/widgets", from simulator: GitHubSimulator,
        in directory: TemporaryDirectory, interval: String? = "1s", settings: String = "git_bootstrap: false"
    ) throws -> DaemonProcess {
        let entry = "name: \(repository)\nbranches: \(branches)" + (interval.map { "\ninterval: \($0)" } ?? "")
        return try mirroring([entry], from: simulator, in: directory, interval: nil, settings: settings, logLevel: "info")
    }
}
