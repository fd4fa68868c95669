import Foundation
import Logging
import Yams

// The values of top-level keys that take more than one check, and the
// settings that are valid alone but not together.
extension ConfigurationLoader {
    /// `store`: an SQLite file, relative to the configuration's directory, or a URI as written.
    func store(_ value: Node, key: String) throws -> String {
        let expected = "the path of the SQLite store file, or a postgresql:// URI"
        let text = try string(value, key: key, expected: expected)
        let location: StoreLocation
        do {
            location = try StoreLocation(text)
        } catch {
            throw self.error(at: value, key: key, problem: "\(error)", expected: nil)
        }
        return location.sqlitePath == nil ? text : try path(value, key: key, expected: expected)
    }

    /// `api_url`: an http(s) URL with a host.
    func apiURL(_ value: Node, key: String) throws -> String {
        let url = try string(value, key: key, expected: "an http(s) URL such as https://api.github.com")
        guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme ?? ""),
            components.host?.isEmpty == false
        else {
            throw error(
                at: value, key: key, problem: "'\(Self.excerpt(url))' is not an http(s) URL",
                expected: "an http(s) URL such as https://api.github.com (GHES: https://HOST/api/v3)")
        }
        return url
    }

    /// `rate_limit_reserve`: a whole number of requests, 0 or more.
    func rateLimitReserve(_ value: Node, key: String) throws -> Int {
        let expected = "a whole number of requests, 0 or more, e.g. 500"
        guard let text = try scalarText(value, key: key, expected: expected) else {
            throw error(at: value, key: key, problem: "has no value", expected: expected)
        }
        guard value.tag.rawValue == Tag.Name.int.rawValue, let reserve = Int(text), reserve >= 0 else {
            throw error(
                at: value, key: key, problem: "'\(Self.excerpt(text))' is not a whole number of requests", expected: expected)
        }
        return reserve
    }

    /// `metrics_listen`, `webhook_listen`: HOST:PORT.
    func listenAddress(_ value: Node, key: String, expected: String) throws -> ListenAddress {
        let text = try string(value, key: key, expected: expected)
        guard let address = ListenAddress(parsing: text) else {
            throw error(at: value, key: key, problem: "'\(Self.excerpt(text))' is not HOST:PORT", expected: expected)
        }
        return address
    }

    /// `log_level`: one of swift-log's levels, in any case.
    func logLevel(_ value: Node, key: String) throws -> Logger.Level {
        let expected = "one of \(Self.levels)"
        let text = try string(value, key: key, expected: expected)
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw error(at: value, key: key, problem: "'\(Self.excerpt(text))' is not a log level", expected: expected)
        }
        return level
    }

    /// An App beside a token file; webhooks on the metrics listener's address.
    func checkExclusiveSettings(of configuration: MirrorConfiguration) throws {
        if let app = configuration.githubApp, let tokenFile = configuration.tokenFile {
            throw ConfigurationError(
                file: file, line: app.line, key: "github_app",
                problem: "is set, and so is token_file (\(tokenFile)); the two are exclusive",
                expected: "either github_app or token_file: remove one of them")
        }
        if let webhooks = configuration.webhookListen, let metrics = configuration.metricsListen, webhooks.overlaps(metrics) {
            throw ConfigurationError(
                file: file, line: configuration.webhookListenLine, key: "webhook_listen",
                problem: "is \(webhooks), where metrics_listen (\(metrics)) already listens",
                expected: "an address of its own: another port for one of the two")
        }
    }
}
