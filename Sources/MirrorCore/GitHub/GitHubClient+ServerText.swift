import Curl
import Foundation

/// Text a server wrote, made fit for an error line, a log or the store: one
/// line, and never the token.
extension GitHubClient {
    /// GitHub's `message`, plus which fields a 422 `errors[]` names.
    func errorMessage(_ response: HTTPResponse) -> String {
        struct Body: Decodable {
            struct FieldError: Decodable { var field: String?; var code: String?; var message: String? }
            var message: String?
            var errors: [FieldError]?
        }
        if let body = try? JSONDecoder().decode(Body.self, from: Data(response.body)), let message = body.message {
            let details = (body.errors ?? []).map { error in
                [error.field.map { "parameter '\($0)'" }, error.code, error.message].compactMap { $0 }.joined(separator: ": ")
            }.filter { !$0.isEmpty }
            return oneLine(redact(details.isEmpty ? message : "\(message) (\(details.joined(separator: "; ")))"))
        }
        // Redacted before it is cut, so no secret is left half shown at the cut.
        let text = oneLine(redact(String(decoding: response.body.prefix(4096), as: UTF8.self)))
        return text.isEmpty ? "no message" : text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// Server text inside a one-line message: control characters (line breaks) become spaces.
    private func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }

    /// `text` without any credential this client sends, in any encoding
    /// (`SecretRedactor`): applied to anything a server sent (messages, bodies,
    /// Link and Location URLs, git's error bands) before it goes into an error,
    /// a log line or the store.
    public func redact(_ text: String) -> String {
        redactor.redact(text)
    }
}

func describeDecodingError(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch error {
    case .dataCorrupted(let context):
        return "invalid JSON at \(path(context).isEmpty ? "top level" : path(context)): \(context.debugDescription)"
    case .keyNotFound(let key, let context):
        return "missing field '\(key.stringValue)' at \(path(context))"
    case .typeMismatch(let type, let context):
        return "wrong type at \(path(context).isEmpty ? "top level" : path(context)) (expected \(type))"
    case .valueNotFound(let type, let context):
        return "null at \(path(context).isEmpty ? "top level" : path(context)) (expected \(type))"
    @unknown default:
        return "\(error)"
    }
}
