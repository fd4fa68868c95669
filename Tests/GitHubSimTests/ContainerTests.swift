import MirrorTestSupport
import Curl
import Foundation
import Testing

/// github-sim where a container puts it: without CAP_NET_ADMIN (systemd-nspawn,
/// Docker), where any socket option that needs it fails. It once asked for
/// SO_DEBUG by mistake (TCP_NODELAY's number at the socket level), and there
/// reset every connection it accepted.
@Suite struct ContainerTests {
    static let setpriv = "/usr/bin/setpriv"
    static let canDropCapabilities = getuid() == 0 && FileManager.default.isExecutableFile(atPath: setpriv)

    @Test(.enabled(if: canDropCapabilities, "needs root and setpriv to drop CAP_NET_ADMIN"))
    func servesWithoutNetworkAdministration() async throws {
        let simulator = try await SimulatorProcess.start(
            ["--synthetic", "acme/widgets=10"], launcher: [Self.setpriv, "--bounding-set=-net_admin", "--"])
        let base = simulator.baseURL
        try #require(base.hasPrefix("http://127.0.0.1:"), "\(base)")
        let capabilities = try String(contentsOfFile: "/proc/\(simulator.process.pid)/status", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("CapEff:") }
        let effective = try #require(capabilities.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) })
        #expect(effective & (1 << 12) == 0, "CAP_NET_ADMIN (12) is dropped")

        let response = try await HTTPClient().send(HTTPRequest(url: base + "/repos/acme/widgets", headers: HTTPTests.headers))
        #expect(response.status == 200)
    }
}
