import CCurl

/// libcurl is loaded (and `curl_global_init` run) on first use, once per
/// process: a command that makes no request never maps it or its libraries.
/// Why it could not be loaded, if it could not.
let curlLoadFailure: String? = ccurl_load().map { String(cString: $0) }

extension HTTPClient {
    /// Starts loading libcurl on a thread of its own, for a command that will make
    /// requests but has other work to do first (reading its configuration, opening
    /// its store): the time the dynamic linker takes to map libcurl and its
    /// libraries, several milliseconds, then overlaps that work. The first client waits for the load if it
    /// is still under way, and reports a failure as before.
    public static func loadLibraryInBackground() {
        ccurl_load_in_background()
    }

    /// Loads libcurl now, or waits for the load under way to end.
    public static func waitForLibrary() {
        _ = ccurl_load()
    }
}
