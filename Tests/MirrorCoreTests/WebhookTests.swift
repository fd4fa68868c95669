import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// Push webhooks' pieces: the signature check, the push hint, the `webhook_*`
/// keys and the schedule's "due now" nudge.
@Suite struct WebhookTests {
    /// The example in GitHub's "Validating webhook deliveries".
    static let githubSecret = "It's a Secret to Everybody"
    static let githubPayload = "Hello, World!"
    static let githubSignature = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"

    @Test func gitHubsDocumentedVectorVerifies() {
        let secret = WebhookSecret(Self.githubSecret, source: "test")
        #expect(secret.signature(of: Array(Self.githubPayload.utf8)) == Self.githubSignature)
        #expect(secret.verifies(Array(Self.githubPayload.utf8), signature: Self.githubSignature))
        #expect(
            secret.verifies(
                Array(Self.githubPayload.utf8),
                signature: Self.githubSignature.uppercased().replacingOccurrences(of: "SHA256=", with: "sha256=")))
    }

    @Test func anyOtherSignatureBodyOrSecretIsRefused() {
        let secret = WebhookSecret(Self.githubSecret, source: "test")
        let body = Array(Self.githubPayload.utf8)
        let flipped = String(Self.githubSignature.dropLast()) + "f"
        for signature in [
            nil, "", flipped, "sha256=", String(Self.githubSignature.dropLast()), Self.githubSignature + "00",
            "sha1=757107ea0eb2509fc211221cce984b8a37570b6d", Self.githubSignature.replacingOccurrences(of: "sha256=", with: ""),
            "sha256=" + String(repeating: "zz", count: 32),
        ] {
            #expect(!secret.verifies(body, signature: signature), "\(signature ?? "nil")")
        }
        #expect(!secret.verifies(Array("Hello, World?".utf8), signature: Self.githubSignature))
        #expect(!WebhookSecret("It's a secret to everybody", source: "test").verifies(body, signature: Self.githubSignature))
    }

    /// The receiver's form: the body fed in the pieces it arrives in, whatever their sizes.
    @Test func aBodyFedInPiecesVerifiesAsAWhole() {
        let secret = WebhookSecret(Self.githubSecret, source: "test")
        let body = Array(Self.githubPayload.utf8)
        for cut in 0...body.count {
            var check = secret.signatureCheck()
            check.update(body[..<cut])
            check.update(body[cut...])
            #expect(check.verifies(signature: Self.githubSignature), "cut at \(cut)")
            #expect(!check.verifies(signature: String(Self.githubSignature.dropLast()) + "f"))
            #expect(!check.verifies(signature: nil))
        }
        var partial = secret.signatureCheck()
        partial.update(body.dropLast())
        #expect(!partial.verifies(signature: Self.githubSignature))
    }

    @Test func theSecretIsNeverPrinted() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("secret", Self.githubSecret + "\n")
        chmod(file, 0o644)
        var warnings: [String] = []
        let secret = try WebhookSecret.fromFile(file) { warnings.append($0) }
        #expect(secret.verifies(Array(Self.githubPayload.utf8), signature: Self.githubSignature), "the newline is trimmed")
        #expect("\(secret)" == "<webhook secret from file \(file)>")
        #expect(String(reflecting: secret) == "<webhook secret from file \(file)>")
        #expect(warnings == ["the webhook secret file \(file) is readable by group or others (mode 644); run: chmod 600 \(file)"])
        // The systemd credential comes first.
        let credentials = directory.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        _ = try directory.write("credentials/github-webhook-secret", "other")
        let resolved = try #require(try WebhookSecret.resolve(configuredFile: file, environment: ["CREDENTIALS_DIRECTORY": credentials]))
        #expect(resolved.source == "systemd credential github-webhook-secret")
        #expect(try WebhookSecret.resolve(configuredFile: nil, environment: [:]) == nil)
        let empty = try directory.write("empty", "\n")
        #expect(throws: WebhookSecret.SecretError.self) { try WebhookSecret.fromFile(empty) }
    }

    @Test func aPushNamesItsRepositoryAndBranch() throws {
        let push = try WebhookPush(
            json: Array(
                #"{"ref":"refs/heads/release/6.3","after":"abc","repository":{"id":1296269,"full_name":"octocat/Hello-World","default_branch":"main"}}"#
                    .utf8))
        #expect(push.repositoryID == 1_296_269)
        #expect(push.repositoryName.description == "octocat/Hello-World")
        #expect(push.branch == "release/6.3")
        #expect(push.defaultBranch == "main")
        let tag = try WebhookPush(json: Array(#"{"ref":"refs/tags/v1","repository":{"full_name":"o/r"}}"#.utf8))
        #expect(tag.branch == nil && tag.repositoryID == nil)
        for bad in ["[]", "{}", #"{"ref":"refs/heads/main"}"#, #"{"ref":"refs/heads/main","repository":{"full_name":"nope"}}"#, "not json"]
        {
            #expect(throws: WebhookPush.Malformed.self) { try WebhookPush(json: Array(bad.utf8)) }
        }
    }

    /// GitHub's `create` and `delete` payloads: `ref` is the short name, `ref_type` says branch or tag.
    @Test func aCreateOrDeleteEventNamesItsRepositoryAndBranch() throws {
        let created = try WebhookPush(
            createdOrDeleted: Array(
                #"{"ref":"release/6.3","ref_type":"branch","master_branch":"main","pusher_type":"user","repository":{"id":1296269,"full_name":"octocat/Hello-World","default_branch":"main"}}"#
                    .utf8))
        #expect(
            created
                == WebhookPush(
                    repositoryID: 1_296_269, repositoryName: try #require(RepositoryName(parsing: "octocat/Hello-World")),
                    branch: "release/6.3", defaultBranch: "main"))
        let tag = try WebhookPush(createdOrDeleted: Array(#"{"ref":"v1.0","ref_type":"tag","repository":{"full_name":"o/r"}}"#.utf8))
        #expect(tag.branch == nil)
        // A push's full ref is not a short name: read as one, it would be a branch called "refs/heads/main".
        let unnamed = try WebhookPush(createdOrDeleted: Array(#"{"ref":"","ref_type":"branch","repository":{"full_name":"o/r"}}"#.utf8))
        #expect(unnamed.branch == nil)
        for bad in ["{}", #"{"ref":"main","ref_type":"branch"}"#, #"{"ref_type":"branch","repository":{"full_name":"o/r"}}"#, "not json"] {
            #expect(throws: WebhookPush.Malformed.self) { try WebhookPush(createdOrDeleted: Array(bad.utf8)) }
        }
    }

    @Test func webhookKeysParse() throws {
        let configuration = try MirrorConfiguration.parse(
            yaml: "webhook_listen: 0.0.0.0:9465\nwebhook_secret_file: hook-secret\nrepositories: [acme/widgets]\n", source: "cfg.yaml",
            relativeTo: "/etc/commits-mirror")
        #expect(configuration.webhookListen == ListenAddress(host: "0.0.0.0", port: 9465))
        #expect(configuration.webhookSecretFile == "/etc/commits-mirror/hook-secret")
        #expect(throws: ConfigurationError.self) {
            try MirrorConfiguration.parse(yaml: "webhook_listen: nine\nrepositories: [acme/widgets]\n", source: "cfg.yaml")
        }
    }
}
