import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// The one redactor every server text goes through (issue #25 item 4), alone.
/// The end-to-end proof is `SecretEchoTests`, over the real binary.
@Suite struct SecretRedactorTests {
    let token = SecretScan.token
    let redactor = SecretRedactor(secrets: [SecretScan.token])

    func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    @Test func everyEncodingOfTheTokenIsRedacted() {
        let basic = base64("x-access-token:\(token)")
        let echoes = [
            token, token.uppercased(), token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
            basic, String(basic.prefix { $0 != "=" }),
            basic.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"),
            base64(token), base64("Authorization: Basic \(basic)"), base64("Authorization: Bearer \(token)"),
            base64("a" + token), base64("ab" + token),
        ]
        for echo in echoes {
            let text = redactor.redact("the server said: \(echo) (sorry)")
            #expect(SecretScan.leaks(in: ["text": text]).isEmpty, "\(echo) → \(text)")
            #expect(text.hasPrefix("the server said: ") && text.hasSuffix(" (sorry)") && text.contains("[REDACTED]"), "\(text)")
        }
    }

    @Test func aTokenCutShortByATruncatedMessageIsRedacted() {
        let basic = base64("x-access-token:\(token)")
        for cut in [token.prefix(10), basic.prefix(12)] {
            #expect(redactor.redact("denied for \(cut)…") == "denied for [REDACTED]…")
            #expect(redactor.redact("denied for \(cut)") == "denied for [REDACTED]")
        }
    }

    @Test func ordinaryTextAndURLsAreLeftAlone() {
        let text = "https://api.github.com/repositories/1/commits?sha=0123456789abcdef0123456789abcdef01234567&page=2 …"
        #expect(redactor.redact(text) == text)
        #expect(SecretRedactor(secrets: ["t"]).redact("t is short") == "t is short")
        // A fine-grained token starts with "github_pat_": text ending in "github" is no cut token.
        let fineGrained = SecretRedactor(secrets: ["github_pat_11ABCDEFG0123456789abcdef"])
        #expect(fineGrained.redact("not found on github") == "not found on github")
        #expect(fineGrained.redact("token github_pat_11ABC…") == "token [REDACTED]…")
    }

    @Test func aSecretRegisteredLaterIsRedactedToo() {
        let jwt = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiIxMjMifQ.c2lnbmF0dXJl"
        let installation = "ghs_INSTALLATION0123456789"
        redactor.register(installation)
        redactor.register(jwt)
        let text = redactor.redact("Bearer \(jwt) and \(base64("x-access-token:\(installation)")) and \(token)")
        #expect(text == "Bearer [REDACTED] and [REDACTED] and [REDACTED]", "\(text)")
    }

    /// The scan every leak test relies on finds the token in each encoding, and nothing in clean text.
    @Test func theLeakScanFindsEveryEncodingOfTheTestToken() throws {
        let texts = [
            "raw": "x \(SecretScan.token) y", "lower": SecretScan.token.lowercased(),
            "basic": "Authorization: \(SecretScan.basicCredential)", "clean": "nothing to see, ghp_ SECRET",
            "tail": String(repeating: "a", count: 100_000) + SecretScan.token,
        ]
        #expect(SecretScan.leaks(in: texts) == ["basic", "lower", "raw", "tail"])
        let directory = try TemporaryDirectory()
        let store = directory.path("store.sqlite")
        try Data(Array(repeating: 0, count: 4096) + Array(SecretScan.basicCredential.utf8)).write(to: URL(fileURLWithPath: store))
        #expect(SecretScan.leaks(inStoreAt: store) == [store])
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: store))
        #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
    }

    @Test func aRotatingFamilyKeepsItsNewestMembersAndNoOtherSecretIsDropped() {
        let redactor = SecretRedactor(secrets: ["ghp_personal_token_1"])
        let tokens = (1...6).map { "ghs_installation_token_\($0)" }
        for token in tokens { redactor.register(token, rotating: "installation-token", keep: 4) }
        redactor.register("eyJhbGciOiJSUzI1NiJ9.jwt.sig", rotating: "app-jwt", keep: 4)
        // The two oldest tokens (expired by now) are no longer looked for; the newest four are.
        #expect(redactor.redact(tokens[0]) == tokens[0] && redactor.redact(tokens[1]) == tokens[1])
        for token in tokens.suffix(4) { #expect(redactor.redact("x \(token) y") == "x [REDACTED] y") }
        #expect(redactor.redact("ghp_personal_token_1") == "[REDACTED]")
        #expect(redactor.redact("Bearer eyJhbGciOiJSUzI1NiJ9.jwt.sig") == "Bearer [REDACTED]")
    }
}
