import Curl
import Foundation
import Logging

/// The request loop: one logical GET, with redirects within the API origin,
/// retries of transient failures, and rate-limit handling. Every error leaves
/// through `send`, redacted of the token.
extension GitHubClient {
    struct PayloadError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    struct Result<Value> {
        var value: Value
        var finalURL: String
    }

    /// What one response means for the request.
    enum Next<Value> {
        case finished(Value)
        case retry(after: Duration, reason: String)
        case follow(String)
    }

    /// The attempts one request has made, each kind of failure with its own budget.
    struct Attempts {
        var transient = 0
        var secondary = 0
        var primary = 0
        var redirects = 0
        /// A 401 to an installation token has had its one fresh token.
        var reauthorized = false
    }

    /// How a request authenticates.
    enum Authorization {
        /// The configured credential: the token, or the App's installation token.
        case configured
        /// The App itself, with a fresh JWT (minting installation tokens).
        case appJWT(GitHubApp)
    }

    /// The credential one attempt sent, for what a 401 to it means.
    enum SentCredential {
        case none, token, installationToken(String), appJWT(GitHubApp)
    }

    /// Sends a GET with redirects, retries and rate-limit handling, then parses
    /// the final 2xx/304 response with `parse` (a parse failure is retried).
    /// The one place errors leave the client: each is redacted here.
    func send<Value>(
        url: String, method: String = "GET", headers: HTTPHeaders = [], authorization: Authorization = .configured,
        kind: RequestKind, repository: RepositoryName,
        parse: (HTTPResponse) throws -> Value
    ) async throws -> Result<Value> {
        do {
            return try await sendUnredacted(
                url: url, method: method, headers: headers, authorization: authorization, kind: kind, repository: repository,
                parse: parse)
        } catch let error as GitHubError {
            throw error.redacted(redact)
        }
    }

    private func sendUnredacted<Value>(
        url originalURL: String, method: String, headers extraHeaders: HTTPHeaders, authorization: Authorization,
        kind: RequestKind, repository: RepositoryName, parse: (HTTPResponse) throws -> Value
    ) async throws -> Result<Value> {
        var url = originalURL
        var attempts = Attempts()
        while true {
            try Task.checkCancellation()
            // The App's own requests (minting a token) spend its budget, not the installation's reserve.
            if case .configured = authorization {
                try await respectReserve(url: url, conditional: extraHeaders["If-None-Match"] != nil)
            }
            let next: Next<Value>
            do {
                let (headers, credential) = try await requestHeaders(for: url, extra: extraHeaders, authorization: authorization)
                // A POST without a body still sends an empty one (Content-Length: 0), as GitHub expects.
                let body: [UInt8]? = method == "POST" ? [] : nil
                let response = try await http.send(HTTPRequest(url: url, method: method, headers: headers, body: body))
                record(response, kind: kind)
                next = try interpret(
                    response, url: url, repository: repository, credential: credential, attempts: &attempts, parse: parse)
            } catch let error as CurlError {
                next = try transportFailure(error, url: url, kind: kind, attempts: &attempts)
            }
            switch next {
            case .finished(let value):
                return Result(value: value, finalURL: url)
            case .retry(let delay, let reason):
                try await pause(delay, reason: reason, url: url)
            case .follow(let target):
                logger.info("following redirect", metadata: ["http.from": "\(redact(url))", "http.to": "\(redact(target))"])
                url = target
            }
        }
    }

    /// What a response means: the parsed value, another attempt, a redirect, or an error.
    private func interpret<Value>(
        _ response: HTTPResponse, url: String, repository: RepositoryName, credential: SentCredential,
        attempts: inout Attempts, parse: (HTTPResponse) throws -> Value
    ) throws -> Next<Value> {
        switch response.status {
        case 200..<300, 304:
            do {
                return .finished(try parse(response))
            } catch {
                let detail =
                    response.body.isEmpty && response.status != 304
                    ? "an empty body"
                    : (error as? PayloadError)?.description ?? describeDecodingError(error)
                return try transientRetry(&attempts, reason: "unreadable response: \(detail)") {
                    GitHubError.malformedResponse(url: url, detail: detail, attempts: $0)
                }
            }
        case 301, 302, 307, 308:
            return .follow(try redirectTarget(of: response, from: url, attempts: &attempts))
        case 401:
            return try unauthorized(response, url: url, credential: credential, attempts: &attempts)
        case 403, 429:
            let (wait, reason) = try rateLimitWait(response, url: url, attempts: &attempts)
            return .retry(after: wait, reason: reason)
        case 404:
            throw GitHubError.notFound(repository: repository.description, tokenSource: configuration.credentialSource)
        case 409:
            throw GitHubError.emptyRepository(repository: repository.description)
        case 422:
            throw GitHubError.validationFailed(url: url, message: errorMessage(response))
        case 500..<600:
            return try transientRetry(&attempts, reason: "server error \(response.status)") {
                GitHubError.serverError(status: response.status, url: url, attempts: $0)
            }
        default:
            throw GitHubError.unexpectedStatus(status: response.status, url: url, message: errorMessage(response))
        }
    }

    /// A failed transfer: cancellation and refusals end the request; the rest is retried.
    /// A credential request that timed out is not: every request waiting on the token
    /// would wait out each attempt's whole timeout too.
    private func transportFailure<Value>(
        _ error: CurlError, url: String, kind: RequestKind, attempts: inout Attempts
    ) throws -> Next<Value> {
        if error.isCancellation { throw CancellationError() }
        if error.isTimeout, kind == .appToken { throw GitHubError.transport(error, url: url, attempts: attempts.transient + 1) }
        // Another attempt would only read the same oversized body again.
        if error.isBodyTooLarge { throw GitHubError.responseTooLarge(url: url, limit: configuration.http.maximumBodySize) }
        if error.isInvalidRequest { throw GitHubError.transport(error, url: url, attempts: 1) }
        return try transientRetry(&attempts, reason: "network error: \(error.message)") {
            GitHubError.transport(error, url: url, attempts: $0)
        }
    }

    /// Another attempt after backoff, or `failure` once the attempts are spent.
    private func transientRetry<Value>(
        _ attempts: inout Attempts, reason: String,
        failure: (Int) -> GitHubError
    ) throws -> Next<Value> {
        attempts.transient += 1
        guard attempts.transient < configuration.retry.maximumAttempts else { throw failure(attempts.transient) }
        return .retry(after: configuration.retry.backoff(afterAttempt: attempts.transient), reason: reason)
    }

    /// Where a redirect leads, only within the API origin: elsewhere (another host
    /// or port, http under https, file:, a metadata address) is never requested.
    private func redirectTarget(of response: HTTPResponse, from url: String, attempts: inout Attempts) throws -> String {
        attempts.redirects += 1
        guard attempts.redirects <= 5 else { throw GitHubError.tooManyRedirects(url: url) }
        guard let location = response.headers["location"], !location.isEmpty else {
            throw GitHubError.unexpectedStatus(status: response.status, url: url, message: "redirect without a Location")
        }
        guard let target = Self.redirectTarget(location, from: url, origin: origin) else {
            let shown = URL(string: location, relativeTo: URL(string: url))?.absoluteString ?? location
            throw GitHubError.redirectRefused(
                from: APIOrigin.displayable(url), to: APIOrigin.displayable(shown),
                origin: origin?.description ?? APIOrigin.displayable(configuration.apiURL))
        }
        return target
    }

    /// Where a redirect may lead: `location` resolved against `url`, if on `origin`.
    static func redirectTarget(_ location: String, from url: String, origin: APIOrigin?) -> String? {
        origin?.resolve(location, against: url)
    }

    /// GitHub's recommended headers, `extra`, and the credential: only for the
    /// API origin, never to another host or port, nor in clear text over http
    /// when the API is https.
    func requestHeaders(
        for url: String, extra: HTTPHeaders = [], authorization: Authorization = .configured
    ) async throws -> (HTTPHeaders, SentCredential) {
        var headers: HTTPHeaders = [
            ("Accept", "application/vnd.github+json"),
            ("X-GitHub-Api-Version", "2022-11-28"),
            ("User-Agent", configuration.userAgent),
        ]
        for (name, value) in extra {
            headers.remove(name: name)
            headers.add(name: name, value: value)
        }
        guard let origin, origin.contains(url) else { return (headers, .none) }
        switch authorization {
        case .appJWT(let app):
            headers.add(name: "Authorization", value: "Bearer \(try appJWT(app))")
            return (headers, .appJWT(app))
        case .configured:
            if let token = configuration.token {
                headers.add(name: "Authorization", value: "Bearer \(token.value)")
                return (headers, .token)
            }
            if let installationToken = try await currentInstallationToken() {
                headers.add(name: "Authorization", value: "Bearer \(installationToken.value)")
                return (headers, .installationToken(installationToken.value))
            }
            return (headers, .none)
        }
    }

    /// A 401: an installation token is minted again once and the request
    /// retried (it may have expired in flight, or been revoked); anything else ends it.
    private func unauthorized<Value>(
        _ response: HTTPResponse, url: String, credential: SentCredential, attempts: inout Attempts
    ) throws -> Next<Value> {
        switch credential {
        case .token:
            throw GitHubError.badCredentials(tokenSource: configuration.credentialSource ?? "the configuration")
        case .installationToken(let value):
            guard let app = configuration.app else { break }
            guard !attempts.reauthorized else {
                throw GitHubAppError.tokenRefused(appID: app.appID, installationID: app.knownInstallationID ?? 0)
            }
            attempts.reauthorized = true
            app.refused(value)
            return .retry(after: .zero, reason: "GitHub refused the installation token (401); minting another")
        case .appJWT(let app):
            throw GitHubAppError.jwtRefused(appID: app.appID, message: errorMessage(response))
        case .none:
            break
        }
        throw GitHubError.unexpectedStatus(status: 401, url: url, message: errorMessage(response))
    }

    private func record(_ response: HTTPResponse, kind: RequestKind) {
        let free = response.status == 304 && configuration.isAuthenticated
        count { usage in
            usage.requests += 1
            if response.status == 304 { usage.notModified += 1 }
            usage.byKind[kind, default: RequestTally()] =
                usage.byKind[kind, default: RequestTally()]
                + RequestTally(requests: 1, notModified: response.status == 304 ? 1 : 0, points: free ? 0 : 1)
            // The App's own requests (JWT) have a limit of their own: the installation's is the one to keep.
            if kind != .appToken, let rate = RateLimitStatus(headers: response.headers) { usage.rateLimit = rate }
        }
    }

    func pause(_ duration: Duration, reason: String, url: String) async throws {
        count { $0.retries += 1 }
        logger.warning(
            "retrying after a pause",
            metadata: [
                "retry.reason": "\(redact(reason))", "retry.delay": "\(duration)", "http.url": "\(redact(url))",
            ])
        try await Task.sleep(for: duration)
    }
}

extension LinkHeader {
    /// The links of a response's `Link` header, `nil` without one. The header is redacted
    /// first, since its URLs are the server's text, and one with no well-formed link is
    /// refused as a malformed payload rather than read as the last page.
    static func of(_ header: String?, redact: (String) -> String) throws -> LinkHeader? {
        guard let header = header.map(redact) else { return nil }
        guard let parsed = LinkHeader(header) else {
            throw GitHubClient.PayloadError("malformed Link header: \(header.prefix(200))")
        }
        return parsed
    }
}
