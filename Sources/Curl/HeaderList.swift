import CCurl

/// Owns a `curl_slist` of request headers. libcurl reads the list during the
/// transfer, so the handle keeps this object alive until the next `set(headers:)`.
final class HeaderList {
    private(set) var rawList: UnsafeMutablePointer<curl_slist>?

    init(_ lines: [String]) {
        for line in lines {
            guard let appended = ccurl_slist_append(rawList, line) else {
                fatalError("curl_slist_append: out of memory")
            }
            rawList = appended
        }
    }

    deinit {
        ccurl_slist_free_all(rawList)
    }
}

@available(*, unavailable)
extension HeaderList: Sendable {}
