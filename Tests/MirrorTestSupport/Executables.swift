import Foundation

/// The package's built products (`commitsctl`, `commitsd`, `github-sim`), run as
/// real processes the way users, cron and systemd run them.
public enum Executables {
    /// The directory beside the test bundle that holds the products.
    public static let productsDirectory: URL = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        while directory.path != "/" && !FileManager.default.fileExists(atPath: directory.appendingPathComponent("commitsctl").path) {
            directory.deleteLastPathComponent()
        }
        return directory
    }()

    public static func url(_ name: String) -> URL { productsDirectory.appendingPathComponent(name) }
    public static func path(_ name: String) -> String { url(name).path }

    /// Variables that would change what the programs do; each test sets what it needs.
    public static let isolatedVariables = [
        "GITHUB_TOKEN", "GH_TOKEN", "COMMITS_DB", "GITHUB_API_URL", "CREDENTIALS_DIRECTORY", "COMMITS_MIRROR_CONFIG",
        "CONFIGURATION_DIRECTORY", "STATE_DIRECTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM",
        "COLUMNS", "TZ",
        // libpq's own; a test that needs one sets it.
        "PGPASSFILE", "PGPASSWORD", "PGSERVICE", "PGSERVICEFILE", "PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGSSLMODE",
        // Tests/run-bounded.sh line-buffers the test process; the products run unaltered.
        "LD_PRELOAD", "_STDBUF_I", "_STDBUF_O", "_STDBUF_E",
    ]

    /// This process's environment without `isolatedVariables`, plus `extra`.
    public static func environment(_ extra: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in isolatedVariables { environment.removeValue(forKey: name) }
        return environment.merging(extra) { _, new in new }
    }
}
