import Foundation

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

    /// The path of the systemd credential `name` (`LoadCredential=`), if the service has it.
    public static func systemdCredential(_ name: String, environment: [String: String]) -> String? {
        guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty else { return nil }
        let path = directory + "/" + name
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// The text of the secret file at `path`, after a warning if group or others may read it
    /// (`shownAs` names the file in it). `unreadable` makes the caller's error from the reason
    /// the file cannot be read.
    public static func contents(
        of path: String, naming file: String, shownAs shown: String, warn: (String) -> Void,
        unreadable: (_ reason: String) -> any Error
    ) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw unreadable(String(cString: strerror(errno))) }
        if info.st_mode & 0o077 != 0 {
            warn(
                "\(shown) is readable by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); run: chmod 600 \(path)")
        }
        guard let text = try text(atPath: path, naming: file) else { throw unreadable("permission denied") }
        return text
    }
}

/// A secret that a service reads from its systemd credential or from the file
/// its configuration names, in the token's order, so each kind of secret says
/// only what its credential is called and how its file is read.
public protocol CredentialSecret {
    /// The systemd credential name (`LoadCredential=`).
    static var credentialName: String { get }
    /// The secret in the file at `path`; `source` names where it came from (default: the file).
    static func fromFile(_ path: String, source: String?, warn: (String) -> Void) throws -> Self
}

extension CredentialSecret {
    /// The secret, first match wins: the systemd credential
    /// `$CREDENTIALS_DIRECTORY/<credentialName>`, then `configuredFile` (the
    /// configuration's setting). `nil` when neither is there.
    public static func resolve(
        configuredFile: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        warn: (String) -> Void = { _ in }
    ) throws -> Self? {
        if let path = SecretFile.systemdCredential(credentialName, environment: environment) {
            return try fromFile(path, source: "systemd credential \(credentialName)", warn: warn)
        }
        return try configuredFile.map { try fromFile($0, source: nil, warn: warn) }
    }
}
