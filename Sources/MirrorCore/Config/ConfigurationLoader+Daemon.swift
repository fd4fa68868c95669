import Foundation
import Yams

// The settings that tell daemons sharing one PostgreSQL store apart (`name`) and
// how long their claims last (`lease_duration`): docs/SCALING.md, docs/OPERATIONS.md.
extension ConfigurationLoader {
    /// Up to 100 printable characters without spaces: it is logged, shown by
    /// `commitsctl status` and stored as a claim's owner.
    func daemonName(_ node: Node, key: String) throws -> String {
        let expected = "up to 100 letters, digits or . _ - @ : characters naming this daemon, e.g. mirror-1"
        let text = try string(node, key: key, expected: expected)
        guard DaemonName.isValid(text) else {
            throw error(at: node, key: key, problem: "'\(Self.excerpt(text))' is not a daemon name", expected: expected)
        }
        return text
    }

    /// At least `MirrorConfiguration.minimumLeaseDuration`: a holder renews every
    /// third of it, and a shorter lease would be lost to a pause of a second or two.
    func leaseDuration(_ node: Node, key: String) throws -> Duration {
        let lease = try duration(node, key: key)
        let minimum = MirrorConfiguration.minimumLeaseDuration
        guard lease >= minimum else {
            throw error(
                at: node, key: key, problem: "\(DurationText.format(lease)) is shorter than \(DurationText.format(minimum))",
                expected: "a duration of at least \(DurationText.format(minimum)), e.g. 60s (the default)")
        }
        return lease
    }
}

/// A daemon's name: the `name` setting, or by default the host name, followed by
/// `@` and `$COMMITSD_INSTANCE` when that is set (a templated systemd unit sets it
/// to `%i`, so two instances on one host are told apart).
public enum DaemonName {
    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100
            && name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "._-@:".unicodeScalars.contains($0) }
    }

    /// `configured` when set; otherwise the host name plus the instance.
    public static func resolve(
        configured: String?, hostName: String = DaemonName.hostName(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let configured { return configured }
        var name = hostName.split(separator: ".").first.map(String.init) ?? ""
        if name.isEmpty || !isValid(name) { name = "commitsd" }
        if let instance = environment["COMMITSD_INSTANCE"], !instance.isEmpty, isValid(name + "@" + instance) {
            name += "@" + instance
        }
        return name
    }

    /// `gethostname(2)`: the kernel's name for this host, without a DNS lookup.
    public static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
