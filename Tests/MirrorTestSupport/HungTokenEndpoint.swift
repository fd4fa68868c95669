import Foundation

/// A github-sim process in App mode (App 4242, installation 678 on `acme`) serving
/// `acme/one` and `acme/two`, whose token endpoint hangs (`holdAccessTokens`) until
/// `release()`; and a configuration naming both repositories with a 2 s `request_timeout`,
/// so a hung request costs seconds, not the default 30.
public struct HungTokenEndpoint {
    public let simulator: SimulatorProcess
    public let config: String
    public let store: String

    public static func start(in directory: TemporaryDirectory) async throws -> HungTokenEndpoint {
        let keyPath = directory.path("app.pem")
        try AppKeys.writeWithOpenSSL(.pkcs8, to: keyPath)
        let publicKey = try directory.write(
            "app.pub", try AppKeys.publicKeyPEM(ofPrivateKeyPEM: try String(contentsOfFile: keyPath, encoding: .utf8)))
        let simulator = try await SimulatorProcess.start([
            "--synthetic=acme/one=30", "--synthetic=acme/two=30", "--app-id", "4242", "--app-key-file", publicKey,
            "--app-installation", "678=acme", "--tokens-file", try directory.write("tokens", ""),
        ])
        try await simulator.control("/_sim/faults", method: "POST", body: #"{"holdAccessTokens":true}"#)
        let store = directory.path("commits.sqlite")
        let config = try directory.write(
            "config.yaml",
            """
            store: \(store)
            api_url: \(simulator.baseURL)
            request_timeout: 2s
            github_app:
              app_id: 4242
              installation_id: 678
              private_key_file: \(keyPath)
            repositories: [acme/one, acme/two]

            """)
        return HungTokenEndpoint(simulator: simulator, config: config, store: store)
    }

    /// `POST …/access_tokens` requests the simulator received, answered or not.
    public func tokenRequests() async throws -> Int {
        try await simulator.control("/_sim/stats")["accessTokenRequests"] as? Int ?? -1
    }

    /// The endpoint answers again, held requests included.
    public func release() async throws { try await simulator.control("/_sim/faults", method: "POST", body: "") }

    /// The start of the one line a hung mint fails with: the App, then the endpoint.
    public var failurePrefix: String {
        "GitHub App 4242 got no installation token: could not reach \(simulator.baseURL)/app/installations/678/access_tokens after 1 attempt: "
    }
}
