import CPostgreSQL

/// What a PostgreSQL connection URI says, read by libpq's own parser (so a
/// `password=` query parameter counts as much as `user:password@`).
public struct ConnectionURI: Sendable, Equatable {
    /// Whether `text` names a PostgreSQL server rather than a file: libpq's two URI schemes.
    public static func isPostgreSQL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://")
    }

    public let host: String?
    public let port: String?
    public let user: String?
    public let database: String?
    /// Whether the URI carries a password (its value is never kept).
    public let hasPassword: Bool

    /// Parses `uri`; a URI libpq cannot read throws libpq's reason, which never quotes a password.
    public init(_ uri: String) throws {
        if let problem = cpq_load() {
            throw PostgreSQLError(kind: .libraryMissing, message: "libpq could not be loaded: \(String(cString: problem))")
        }
        var errorText: UnsafeMutablePointer<CChar>?
        guard let options = cpq_conninfo_parse(uri, &errorText) else {
            let message = errorText.map { String(cString: $0) } ?? "libpq could not parse the connection URI"
            if let errorText { cpq_freemem(errorText) }
            throw PostgreSQLError(kind: .connection, message: message)
        }
        defer { cpq_conninfo_free(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        host = values["host"] ?? values["hostaddr"]
        port = values["port"]
        user = values["user"]
        database = values["dbname"]
        hasPassword = !(values["password"] ?? "").isEmpty
    }
}
