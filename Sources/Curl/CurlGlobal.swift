import CCurl

/// libcurl is loaded (and `curl_global_init` run) on first use, once per
/// process: a command that makes no request never maps it or its libraries.
/// Why it could not be loaded, if it could not.
let curlLoadFailure: String? = ccurl_load().map { String(cString: $0) }
