import Foundation
import MirrorCore
import PostgreSQL

/// The PostgreSQL store's driver (`StoreDrivers.register(postgreSQL:)`).
///
/// Authentication is libpq's: the URI, `PGPASSFILE` / `~/.pgpass`, `PGSERVICE`
/// and the other `PG*` variables. A password may also come from the systemd
/// credential `postgresql-password` (`LoadCredential=`), handed to libpq
/// directly. Never from the URI: a password there would show in process lists,
/// shell history, logs and `status`.
public struct PostgreSQLDriver: StoreDriver {
    /// The systemd credential holding the database password.
    public static let passwordCredential = "postgresql-password"

    private let givenEnvironment: [String: String]?

    /// Without an environment, the process's, read only when a PostgreSQL store
    /// is opened: building it costs a command on a SQLite store a few percent of
    /// its start-up.
    public init(environment: [String: String]? = nil) {
        self.givenEnvironment = environment
    }

    private var environment: [String: String] { givenEnvironment ?? ProcessInfo.processInfo.environment }

    public func validate(address uri: String) throws {
        let parsed: ConnectionURI
        do {
            parsed = try ConnectionURI(uri)
        } catch let error as PostgreSQLError {
            throw PostgreSQLStoreError.unreadableURI(reason: error.message)
        }
        if parsed.hasPassword { throw PostgreSQLStoreError.passwordInURI }
    }

    public func openWriter(address uri: String) throws -> any MirrorWriter {
        try connecting(uri) { try PostgreSQLStore(uri: $0, password: $1) }
    }

    public func openCopySource(address uri: String) throws -> any MirrorSnapshotSource {
        try connecting(uri) { try PostgreSQLSnapshotSource(uri: $0, password: $1) }
    }

    public func openCopyDestination(address uri: String) throws -> any MirrorCopyDestination {
        try connecting(uri) { try PostgreSQLStore(uri: $0, password: $1) }
    }

    public func openReader(address uri: String) throws -> any MirrorReading {
        try validate(address: uri)
        return try PostgreSQLReader(uri: uri, password: try credentialPassword())
    }

    /// A copy is always a new SQLite file, which the SQLite driver writes.
    public func backup(of source: StoreLocation, to destination: String) throws -> StoreBackup {
        try StoreDrivers.sqlite().backup(of: source, to: destination)
    }

    public func databaseName(address uri: String) throws -> String? {
        let parsed = try ConnectionURI(uri)
        let environment = environment
        return [parsed.database, environment["PGDATABASE"], parsed.user, environment["PGUSER"]].lazy.compactMap { $0 }
            .first { !$0.isEmpty }
    }

    public func claimRepository(address uri: String, repository: RepositoryName, holder: String) throws
        -> StoreLocation.DatabaseClaim
    {
        .held(
            try connecting(uri, validating: false) {
                try QueueClaim.acquire(uri: $0, password: $1, repository: repository, holder: holder)
            })
    }

    public func openSyncLeases(address uri: String) throws -> any SyncLeases {
        try connecting(uri) { try PostgreSQLSyncLeases(uri: $0, password: $1) }
    }

    /// Connects to `uri` with the credential's password, so that every opener
    /// reports a refused connection as the same store error naming the URI.
    private func connecting<Connection>(
        _ uri: String, validating: Bool = true, _ connect: (String, String?) throws -> Connection
    ) throws -> Connection {
        if validating { try validate(address: uri) }
        do {
            return try connect(uri, try credentialPassword())
        } catch let error as PostgreSQLError {
            throw PostgreSQLStoreError(error, uri: uri)
        }
    }

    /// `$CREDENTIALS_DIRECTORY/postgresql-password`, its last newline dropped; `nil` without one.
    func credentialPassword() throws -> String? {
        guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty else { return nil }
        let path = directory + "/" + Self.passwordCredential
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), var text = String(data: data, encoding: .utf8) else {
            throw PostgreSQLStoreError.unreadableCredential(path: path)
        }
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        return text.isEmpty ? nil : text
    }
}
