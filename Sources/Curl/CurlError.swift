import CCurl

/// A failed libcurl call: the `CURLcode` and the most specific text curl gave
/// (its per-handle error buffer when filled, else `curl_easy_strerror`).
public struct CurlError: Error, Sendable, CustomStringConvertible {
    public let code: Int
    public let message: String

    public init(code: CURLcode, detail: String?) {
        self.code = Int(code.rawValue)
        if let detail, !detail.isEmpty {
            self.message = detail
        } else {
            self.message = String(cString: ccurl_easy_strerror(code))
        }
    }

    /// The transfer was aborted because the calling task was cancelled.
    public var isCancellation: Bool { code == Int(CURLE_ABORTED_BY_CALLBACK.rawValue) }
    /// Timed out while connecting or transferring, or the peer stalled.
    public var isTimeout: Bool { code == Int(CURLE_OPERATION_TIMEDOUT.rawValue) }
    /// The response body passed `HTTPClient.Configuration.maximumBodySize`.
    public var isBodyTooLarge: Bool { code == Int(CURLE_WRITE_ERROR.rawValue) }
    /// The request itself was refused before sending (e.g. CR or LF in a header); another attempt fails the same way.
    public var isInvalidRequest: Bool { code == Int(CURLE_BAD_FUNCTION_ARGUMENT.rawValue) }

    private init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    /// The same error with its text passed through `transform` (e.g. redaction).
    public func mapMessage(_ transform: (String) -> String) -> CurlError {
        CurlError(code: code, message: transform(message))
    }

    public var description: String { "\(message) (curl error \(code))" }
}
