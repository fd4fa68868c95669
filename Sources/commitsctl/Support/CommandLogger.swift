import ArgumentParser
import Logging

/// The command-line tools log warnings and errors to stderr (retries,
/// redirects); `--log-level` shows more.
func makeCommandLogger(level: Logger.Level) -> Logger {
    var logger = Logger(label: "commitsctl") { label in StreamLogHandler.standardError(label: label) }
    logger.logLevel = level
    return logger
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
