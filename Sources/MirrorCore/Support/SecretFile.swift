/// Reads the files secrets come from (the token, the App's key, the webhook
/// secret) as `SmallTextFile` reads a configuration: never more than a secret
/// could need, so a file named by mistake (a log, a database, a device that
/// never ends, a FIFO) is refused in one line instead of read into memory or waited on.
public enum SecretFile {
    /// Far above any secret: an RSA key of 16384 bits is about 12 KiB of PEM.
    public static let maximumSize = 64 << 10

    /// A file that is no secret: too large, not a regular file, not UTF-8.
    public struct Refused: Error, Sendable, CustomStringConvertible {
        public var path: String
        /// What the file was to hold, as the caller names it ("token file /etc/…").
        public var file: String
        public var problem: SmallTextFile.Problem

        public var description: String { "\(file) \(problem); a secret file holds only the secret: check the path" }
    }

    /// The file's text; `nil` when it is missing or cannot be read (the caller says so in its own words).
    public static func text(atPath path: String, naming file: String) throws -> String? {
        switch SmallTextFile.contents(of: path, limit: maximumSize) {
        case .success(let text): return text
        case .failure(.missing), .failure(.unreadable): return nil
        case .failure(let problem): throw Refused(path: path, file: file, problem: problem)
        }
    }
}
