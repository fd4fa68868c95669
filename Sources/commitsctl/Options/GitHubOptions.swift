import ArgumentParser
import Foundation
import MirrorCore

/// Where GitHub is and how to authenticate. The token itself is never
/// accepted on the command line: only a path to a file holding it.
struct GitHubOptions: ParsableArguments {
    @Option(help: "Read the GitHub token from this file (default: $GITHUB_TOKEN, $GH_TOKEN, then the systemd credential github-token).")
    var tokenFile: String?

    @Option(
        name: .customLong("api-url"),
        help: "GitHub API base URL (default: $GITHUB_API_URL, else https://api.github.com; GHES: https://HOST/api/v3).")
    var apiURL: String?

    var resolvedAPIURL: String {
        if let apiURL { return apiURL }
        return EnvironmentVariables.process.nonEmpty("GITHUB_API_URL") ?? GitHubClient.defaultAPIURL
    }

    /// The token, from `--token-file` or the environment (warnings go to stderr).
    func resolveToken() throws -> GitHubToken? {
        try GitHubToken.resolve(tokenFile: tokenFile) { warning in printWarning(warning) }
    }

    func validate() throws {
        let url = resolvedAPIURL
        if APIOrigin.containsCredentials(url) {
            // Never echoed: the part before @ is a password.
            throw ValidationError(
                "--api-url / $GITHUB_API_URL must not contain a user name or credentials (…@ before the host); put the token in GITHUB_TOKEN or --token-file"
            )
        }
        guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme ?? ""),
            components.host?.isEmpty == false
        else {
            throw ValidationError(
                "--api-url / $GITHUB_API_URL must be an http(s) URL such as https://api.github.com, not '\(APIOrigin.displayable(url))'")
        }
    }
}
