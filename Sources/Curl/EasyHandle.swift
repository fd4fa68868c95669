import CCurl
import Synchronization

/// Owns one `CURL*` easy handle. Reusing a handle across transfers keeps its
/// connection cache, so consecutive requests to the same host share one
/// keep-alive connection.
///
/// Not thread-safe and explicitly not `Sendable`: `HTTPClient` confines each
/// handle to one serial queue. Callbacks find `self` through `Unmanaged`
/// userdata; libcurl only holds the pointer while `perform` runs.
final class EasyHandle {
    private let rawHandle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Kept alive for as long as libcurl may read it (until the next transfer).
    private var headerList: HeaderList?
    private var urlStorage: [CChar] = []

    // Per-transfer state, written by the callbacks during `perform`.
    private var responseBody: [UInt8] = []
    private var responseHeaders = HTTPHeaders()
    private var maximumBodySize = Int.max
    /// `HTTPClient.Configuration.timeout`, for requests that set none of their own.
    private var defaultTimeout: Duration = .seconds(60)
    private var bodyTooLarge = false
    private var cancellation: CancellationFlag?
    /// Receives a 2xx body instead of `responseBody` (`HTTPClient.send(_:streamingBodyTo:)`).
    private var bodyConsumer: ((UnsafeRawBufferPointer) throws -> Void)?
    /// Whether this transfer's body goes to `bodyConsumer`; decided at its first byte, once the status is known.
    private var streamsBody: Bool?
    private var bodyConsumerError: (any Error)?

    init(configuration: HTTPClient.Configuration) throws {
        if let curlLoadFailure {
            throw CurlError(code: CURLE_FAILED_INIT, detail: "libcurl could not be loaded: \(curlLoadFailure)")
        }
        guard let handle = ccurl_easy_init() else {
            throw CurlError(code: CURLE_FAILED_INIT, detail: "curl_easy_init returned NULL")
        }
        rawHandle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try configureOnce(configuration)
    }

    deinit {
        ccurl_easy_cleanup(rawHandle)
        errorBuffer.deallocate()
    }

    // MARK: - Options that hold for every transfer

    private func configureOnce(_ configuration: HTTPClient.Configuration) throws {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_ERRORBUFFER, pointer: errorBuffer)
        // Multithreaded programs must not let curl use signals for timeouts.
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_SSL_VERIFYPEER, 1)
        try set(CURLOPT_SSL_VERIFYHOST, 2)
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        try set(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.milliseconds)
        // A peer that stalls (under 1 byte/s for this long) is a failure, not a wait.
        try set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try set(CURLOPT_LOW_SPEED_TIME, max(1, configuration.stallTimeout.milliseconds / 1000))
        if configuration.acceptCompressedResponses {
            // "" = every encoding this libcurl can decode; it decompresses for us.
            try set(CURLOPT_ACCEPT_ENCODING, "")
        }
        try check(ccurl_easy_setopt_data_function(rawHandle, CURLOPT_WRITEFUNCTION, writeCallback))
        try set(CURLOPT_WRITEDATA, pointer: userdata)
        try check(ccurl_easy_setopt_data_function(rawHandle, CURLOPT_HEADERFUNCTION, headerCallback))
        try set(CURLOPT_HEADERDATA, pointer: userdata)
        try check(ccurl_easy_setopt_xferinfo_function(rawHandle, progressCallback))
        try set(CURLOPT_XFERINFODATA, pointer: userdata)
        try set(CURLOPT_NOPROGRESS, 0)
        maximumBodySize = configuration.maximumBodySize
        defaultTimeout = configuration.timeout
    }

    // MARK: - One transfer

    /// Runs one blocking transfer. Call only from the owning serial queue.
    func perform(
        _ request: HTTPRequest, cancellation: CancellationFlag,
        bodyConsumer: ((UnsafeRawBufferPointer) throws -> Void)? = nil
    ) throws -> HTTPResponse {
        if cancellation.isCancelled {
            throw CurlError(code: CURLE_ABORTED_BY_CALLBACK, detail: "the request was cancelled")
        }
        self.cancellation = cancellation
        responseBody = []
        responseHeaders = HTTPHeaders()
        bodyTooLarge = false
        self.bodyConsumer = bodyConsumer
        streamsBody = nil
        bodyConsumerError = nil
        errorBuffer[0] = 0
        defer {
            self.cancellation = nil
            self.bodyConsumer = nil
            self.bodyConsumerError = nil
        }

        // A request's own limit is at least 1 ms: 0 would mean none at all to libcurl.
        try set(CURLOPT_TIMEOUT_MS, request.timeout.map { max(1, $0.milliseconds) } ?? defaultTimeout.milliseconds)
        urlStorage = Array(request.url.utf8CString)
        try urlStorage.withUnsafeBufferPointer { try set(CURLOPT_URL, cString: $0.baseAddress!) }
        if let body = request.body {
            // COPYPOSTFIELDS copies the bytes, so nothing must outlive this call.
            try set(CURLOPT_POSTFIELDSIZE, body.count)
            if body.isEmpty {
                try set(CURLOPT_COPYPOSTFIELDS, "")
            } else {
                try body.withUnsafeBytes { bytes in
                    try check(
                        ccurl_easy_setopt_pointer(rawHandle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress!)))
                }
            }
        } else {
            try set(CURLOPT_HTTPGET, 1)
        }
        // CUSTOMREQUEST only renames the method; NULL restores the default for the body choice above.
        if request.method == "GET" || (request.method == "POST" && request.body != nil) {
            try check(ccurl_easy_setopt_pointer(rawHandle, CURLOPT_CUSTOMREQUEST, nil))
        } else {
            try set(CURLOPT_CUSTOMREQUEST, request.method)
        }
        let list = HeaderList(request.headers.map { "\($0.name): \($0.value)" })
        try check(ccurl_easy_setopt_slist(rawHandle, CURLOPT_HTTPHEADER, list.rawList))
        headerList = list

        let code = ccurl_easy_perform(rawHandle)
        if let bodyConsumerError { throw bodyConsumerError }
        guard code == CURLE_OK else {
            throw CurlError(code: code, detail: transferErrorDetail(code))
        }
        var status = 0
        try check(ccurl_easy_getinfo_long(rawHandle, CURLINFO_RESPONSE_CODE, &status))
        var connects = 0
        try check(ccurl_easy_getinfo_long(rawHandle, CURLINFO_NUM_CONNECTS, &connects))
        return HTTPResponse(status: status, headers: responseHeaders, body: responseBody, newConnections: connects)
    }

    private func transferErrorDetail(_ code: CURLcode) -> String {
        if code == CURLE_WRITE_ERROR, bodyTooLarge {
            return "response body larger than \(maximumBodySize) bytes"
        }
        if code == CURLE_ABORTED_BY_CALLBACK {
            return "the request was cancelled"
        }
        if code == CURLE_OUT_OF_MEMORY, errorBuffer[0] == 0 {
            // libcurl's only word for a response header line over its 100 KB limit.
            return "out of memory, or a response header line longer than libcurl's 100 KB limit"
        }
        return String(cString: errorBuffer)
    }

    // MARK: - Callbacks (C function pointers; no captures, `self` via userdata)

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let bodyConsumer {
            if streamsBody == nil {
                var status = 0
                streamsBody =
                    ccurl_easy_getinfo_long(rawHandle, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && (200..<300).contains(status)
            }
            if streamsBody == true {
                do {
                    try bodyConsumer(bytes)
                    return true
                } catch {
                    bodyConsumerError = error
                    return false
                }
            }
        }
        guard responseBody.count + bytes.count <= maximumBodySize else {
            bodyTooLarge = true
            return false
        }
        if responseBody.isEmpty, let length = responseHeaders["content-length"].flatMap(Int.init),
            length <= maximumBodySize
        {
            responseBody.reserveCapacity(length)
        }
        responseBody.append(contentsOf: bytes)
        return true
    }

    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        // Invalid UTF-8 in a header becomes U+FFFD rather than dropping the field.
        let line = String(decoding: bytes, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            // A new status line: an interim (1xx) response ended; keep only the final one's headers.
            responseHeaders = HTTPHeaders()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingWhitespace()
        let value = line[line.index(after: colon)...].trimmingWhitespace()
        responseHeaders.add(name: name, value: value)
    }

    fileprivate var shouldAbort: Bool { cancellation?.isCancelled ?? false }

    // MARK: - Typed setopt

    private func set(_ option: CURLoption, _ value: Int) throws {
        try check(ccurl_easy_setopt_long(rawHandle, option, value))
    }

    private func set(_ option: CURLoption, _ value: String) throws {
        // curl (>= 7.17) copies string options, so a temporary C string is fine.
        try check(ccurl_easy_setopt_string(rawHandle, option, value))
    }

    private func set(_ option: CURLoption, cString: UnsafePointer<CChar>) throws {
        try check(ccurl_easy_setopt_string(rawHandle, option, cString))
    }

    private func set(_ option: CURLoption, pointer: UnsafeMutableRawPointer) throws {
        try check(ccurl_easy_setopt_pointer(rawHandle, option, pointer))
    }

    private func set(_ option: CURLoption, pointer: UnsafeMutablePointer<CChar>) throws {
        try check(ccurl_easy_setopt_pointer(rawHandle, option, UnsafeMutableRawPointer(pointer)))
    }

    private func check(_ code: CURLcode) throws {
        guard code == CURLE_OK else {
            throw CurlError(code: code, detail: nil)
        }
    }
}

@available(*, unavailable)
extension EasyHandle: Sendable {}

// MARK: - C callbacks

private func handle(from userdata: UnsafeMutableRawPointer?) -> EasyHandle {
    Unmanaged<EasyHandle>.fromOpaque(userdata!).takeUnretainedValue()
}

private let writeCallback: ccurl_data_callback = { data, size, count, userdata in
    let length = size * count
    let bytes = UnsafeRawBufferPointer(start: data, count: length)
    // Returning anything but `length` makes curl fail the transfer with CURLE_WRITE_ERROR.
    return handle(from: userdata).receiveBody(bytes) ? length : 0
}

private let headerCallback: ccurl_data_callback = { data, size, count, userdata in
    let length = size * count
    handle(from: userdata).receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
    return length
}

private let progressCallback: ccurl_xferinfo_callback = { userdata, _, _, _, _ in
    // Non-zero aborts the transfer with CURLE_ABORTED_BY_CALLBACK.
    handle(from: userdata).shouldAbort ? 1 : 0
}

// MARK: - Helpers

extension Duration {
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}
