@testable import MirrorCore

/// How the configuration suites read a file: as `cfg.yaml`, relative to
/// /etc/commits-mirror unless told otherwise, and what it is rejected with.
protocol ConfigurationParsing {}

extension ConfigurationParsing {
    func parse(_ yaml: String, directory: String? = "/etc/commits-mirror") throws -> MirrorConfiguration {
        try MirrorConfiguration.parse(yaml: yaml, source: "cfg.yaml", relativeTo: directory)
    }

    /// The message `yaml` is rejected with; nil when it is accepted.
    func message(_ yaml: String) -> String? {
        message { try parse(yaml) }
    }

    /// The message `body` throws; nil when it returns.
    func message(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            return "\(error)"
        }
    }
}
