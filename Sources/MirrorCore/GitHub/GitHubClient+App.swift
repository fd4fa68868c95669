import Curl
import Foundation
import Logging

/// GitHub App authentication: the installation token every API and git
/// request sends, minted with the App's JWT at
/// `POST /app/installations/{id}/access_tokens` (docs/GITHUB-APP.md).
extension GitHubClient {
    /// The installation token to send now (minted when due); `nil` without an App.
    func currentInstallationToken() async throws -> InstallationToken? {
        guard let app = configuration.app else { return nil }
        return try await app.token { [self] in
            do {
                return try await mintInstallationToken(app)
            } catch let error as GitHubError where !error.isRateLimit {
                // Named as the App's failure, so the request that needed the token is not blamed.
                throw GitHubAppError.tokenEndpointFailed(appID: app.appID, failure: "\(error)")
            }
        }
    }

    /// The JWT for one request, registered with the redactor before it is sent.
    func appJWT(_ app: GitHubApp) throws -> String {
        let jwt = try AppJWT.make(appID: app.appID, key: app.key, now: app.now())
        redactor.register(jwt, rotating: "app-jwt")
        return jwt
    }

    private struct AccessTokenAnswer: Decodable {
        var token: String
        var expires_at: String
    }

    /// One new installation token (the installation looked up first when not configured).
    private func mintInstallationToken(_ app: GitHubApp) async throws -> InstallationToken {
        let installationID = try await installationID(of: app)
        let url = "\(configuration.apiURL)/app/installations/\(installationID)/access_tokens"
        let answer: AccessTokenAnswer
        do {
            answer = try await send(
                url: url, method: "POST", authorization: .appJWT(app), kind: .appToken, repository: Self.appLabel
            ) { response in
                let answer = try PayloadDecoder().decode(AccessTokenAnswer.self, from: response.body)
                // Registered before anything else sees the body: from here on it is never shown.
                redactor.register(answer.token, rotating: "installation-token")
                return answer
            }.value
        } catch GitHubError.notFound {
            throw GitHubAppError.installationNotFound(appID: app.appID, installationID: installationID)
        }
        guard (try? GitHubToken.checked(answer.token, source: "GitHub")) != nil else {
            throw GitHubAppError.malformedToken(appID: app.appID, detail: "the token holds whitespace or control characters")
        }
        guard let expiresAt = ISO8601DateFormatter().date(from: answer.expires_at) else {
            throw GitHubAppError.malformedToken(appID: app.appID, detail: "expires_at is not an ISO 8601 time")
        }
        let now = app.now()
        guard expiresAt > now else {
            throw GitHubAppError.malformedToken(appID: app.appID, detail: "it expired already (check this machine's clock)")
        }
        logger.info(
            "minted an installation token",
            metadata: ["app.id": "\(app.appID)", "app.installation": "\(installationID)", "token.expires_at": "\(answer.expires_at)"])
        return InstallationToken(value: answer.token, expiresAt: expiresAt, receivedAt: now)
    }

    /// The configured installation, or the App's only installation on the owner.
    private func installationID(of app: GitHubApp) async throws -> Int {
        if let known = app.knownInstallationID { return known }
        guard case .onlyOne(let owner) = app.installation else { preconditionFailure("an installation id is known from the start") }
        struct Installation: Decodable {
            struct Account: Decodable { var login: String }
            var id: Int
            var account: Account?
        }
        var url: String? = "\(configuration.apiURL)/app/installations?per_page=100"
        var installations: [Installation] = []
        var pages = 0
        while let pageURL = url, pages < 100 {
            pages += 1
            let page = try await send(url: pageURL, authorization: .appJWT(app), kind: .appToken, repository: Self.appLabel) {
                response -> ([Installation], String?) in
                let next = response.headers["link"].flatMap(LinkHeader.init)?.next
                return (try PayloadDecoder().decode([Installation].self, from: response.body), next)
            }.value
            installations += page.0
            url = page.1.flatMap { origin?.resolve($0, against: pageURL) }
        }
        let matching = installations.filter { $0.account?.login.lowercased() == owner.lowercased() }
        guard let only = matching.first, matching.count == 1 else {
            throw GitHubAppError.notInstalled(
                appID: app.appID, owner: owner, installedOn: installations.compactMap { $0.account?.login }.map(redact))
        }
        app.rememberInstallationID(only.id)
        return only.id
    }

    /// What App requests are reported as (no repository is involved).
    static let appLabel = RepositoryName(owner: "app", name: "installations")
}
