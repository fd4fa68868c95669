import ArgumentParser
import Foundation
import MirrorCore

/// Where GitHub is and how to authenticate. The token is read from the
/// environment only, never from the command line.
struct GitHubOptions: ParsableArguments {
    @Option(name: .customLong("api-url"), help: "GitHub API base URL (default: $GITHUB_API_URL, else https://api.github.com; GHES: https://HOST/api/v3).")
    var apiURL: String?

    var resolvedAPIURL: String {
        if let apiURL { return apiURL }
        if let fromEnvironment = ProcessInfo.processInfo.environment["GITHUB_API_URL"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return GitHubClient.defaultAPIURL
    }

    func validate() throws {
        let url = resolvedAPIURL
        guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme ?? ""),
              components.host?.isEmpty == false
        else {
            throw ValidationError("--api-url / $GITHUB_API_URL must be an http(s) URL such as https://api.github.com, not '\(url)'")
        }
    }
}
