import CCurl

/// libcurl's process-wide initialisation. `curl_global_init` is not thread-safe,
/// so it runs exactly once, lazily, before the first easy handle is created.
let curlGlobalInitialization: Void = {
    let code = curl_global_init(Int(CURL_GLOBAL_ALL))
    precondition(code == CURLE_OK, "curl_global_init failed: \(code.rawValue)")
}()
