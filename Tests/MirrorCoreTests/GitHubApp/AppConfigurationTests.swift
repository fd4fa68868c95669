import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// `github_app:` in the configuration: its keys, the key from the file or the
/// systemd credential, and one line for every mistake, naming both sides when
/// a token is configured too.
@Suite struct AppConfigurationTests: ConfigurationParsing {
    @Test func theAppsKeysAreRead() throws {
        let configuration = try parse(
            """
            github_app:
              app_id: 12345
              installation_id: 678
              private_key_file: app.pem
            repositories: [acme/widgets]
            """)
        #expect(
            configuration.githubApp == GitHubAppSettings(appID: 12345, installationID: 678, privateKeyFile: "/etc/commits-mirror/app.pem"))
        #expect(configuration.githubApp?.line == 1)
    }

    @Test(arguments: [
        (
            "github_app: {app_id: 1, private_key_file: k.pem}\ntoken_file: t\nrepositories: [a/b]",
            "cfg.yaml:1: github_app: is set, and so is token_file (/etc/commits-mirror/t); the two are exclusive; expected either github_app or token_file: remove one of them"
        ),
        (
            "github_app: {private_key_file: k.pem}\nrepositories: [a/b]",
            "cfg.yaml:1: github_app.app_id: missing; expected the App's numeric id (its settings page: App ID)"
        ),
        (
            "github_app: {app_id: '12', private_key_file: k.pem}\nrepositories: [a/b]",
            "cfg.yaml:1: github_app.app_id: '12' is not a positive whole number; expected the App's numeric id (its settings page: App ID)"
        ),
        (
            "github_app: {app_id: 1, key: k.pem}\nrepositories: [a/b]",
            "cfg.yaml:1: github_app.key: unknown key; expected one of app_id, installation_id, private_key_file"
        ),
        (
            "github_app: 12345\nrepositories: [a/b]",
            "cfg.yaml:1: github_app: is a single value ('12345'); expected a mapping with app_id, private_key_file and optionally installation_id"
        ),
    ])
    func everyMistakeIsOneLine(_ yaml: String, expected: String) {
        #expect(message { try parse(yaml) } == expected)
    }

    @Test func aTokenFromTheEnvironmentBesideTheAppIsRefusedNamingBoth() throws {
        let directory = try TemporaryDirectory()
        try AppKeys.writeWithOpenSSL(.pkcs1, to: directory.path("app.pem"))
        let configuration = try parse(
            "github_app: {app_id: 7, private_key_file: app.pem}\nrepositories: [acme/a]", directory: directory.url.path)
        let refused = message { try configuration.resolveCredentials(environment: ["GITHUB_TOKEN": "ghp_abcdefgh"]) }
        #expect(
            refused
                == "cfg.yaml:1: github_app: is set, and so is a token (from environment variable GITHUB_TOKEN); the two are exclusive; expected either github_app or a personal token: remove one of them"
        )
        let resolved = try configuration.resolveCredentials(environment: [:])
        #expect(resolved.token == nil && resolved.app?.appID == 7 && resolved.app?.installation == .onlyOne(owner: "acme"))
    }

    @Test func aBadKeyFileIsOneLineNamingTheFile() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("app.pem", "not a key\n")
        let configuration = try parse(
            "github_app: {app_id: 7, private_key_file: app.pem}\nrepositories: [acme/a]", directory: directory.url.path)
        let path = directory.path("app.pem")
        #expect(
            message { try configuration.resolveCredentials(environment: [:]) }
                == "cfg.yaml:1: github_app: the GitHub App private key from file \(path) is not a PEM RSA private key of 2048 bits or more (BEGIN RSA PRIVATE KEY or BEGIN PRIVATE KEY); download a new one from the App's settings page"
        )
        let noKey = try parse("github_app: {app_id: 7}\nrepositories: [acme/a]")
        #expect(
            message { try noKey.resolveCredentials(environment: [:]) }
                == "cfg.yaml:1: github_app.private_key_file: missing; expected the path of the App's PEM private key, or the systemd credential github-app-key"
        )
    }

    @Test func withoutAnInstallationIdTheRepositoriesMustNameOneOwner() throws {
        let directory = try TemporaryDirectory()
        try AppKeys.writeWithOpenSSL(.pkcs8, to: directory.path("app.pem"))
        let twoOwners = try parse(
            "github_app: {app_id: 7, private_key_file: app.pem}\nrepositories: [acme/a, 'other/*']", directory: directory.url.path)
        #expect(
            message { try twoOwners.resolveCredentials(environment: [:]) }
                == "cfg.yaml:1: github_app.installation_id: missing, and the repositories name 2 owners; expected the installation id (the number in the installation's settings URL)"
        )
        let named = try parse(
            "github_app: {app_id: 7, installation_id: 8, private_key_file: app.pem}\nrepositories: [acme/a, 'other/*']",
            directory: directory.url.path)
        #expect(try named.resolveCredentials(environment: [:]).app?.installation == .id(8))
    }

    @Test func aReloadNamesTheAppsChangeWithoutAnySecret() throws {
        let old = try parse("github_app: {app_id: 7, private_key_file: app.pem}\nrepositories: [acme/a]")
        let new = try parse("github_app: {app_id: 7, installation_id: 9, private_key_file: app.pem}\nrepositories: [acme/a]")
        #expect(
            old.changes(to: new) == [
                "github_app: app 7, installation (the owner's only one), key /etc/commits-mirror/app.pem -> app 7, installation 9, key /etc/commits-mirror/app.pem"
            ])
    }
}
