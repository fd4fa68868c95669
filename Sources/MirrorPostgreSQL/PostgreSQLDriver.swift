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
        try validate(address: uri)
        do {
            return try PostgreSQLStore(uri: uri, password: try credentialPassword())
        } catch let error as PostgreSQLError {
            throw PostgreSQLStoreError(error, uri: uri)
        }
    }

    public func openCopySource(address uri: String) throws -> any MirrorSnapshotSource {
        try validate(address: uri)
        do {
            return try PostgreSQLSnapshotSource(uri: uri, password: try credentialPassword())
        } catch let error as PostgreSQLError {
            throw PostgreSQLStoreError(error, uri: uri)
        }
    }

    public func openCopyDestination(address uri: String) throws -> any MirrorCopyDestination {
        try validate(address: uri)
        do {
            return try PostgreSQLStore(uri: uri, password: try credentialPassword())
        } catch let error as PostgreSQLError {
            throw PostgreSQLStoreError(error, uri: uri)
        }
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
        do {
            return .held(
                try QueueClaim.acquire(uri: uri, password: try credentialPassword(), repository: repository, holder: holder))
        } catch let error as PostgreSQLError {
            throw PostgreSQLStoreError(error, uri: uri)
        }
    }

    public func openSyncLeases(address uri: String) throws -> any SyncLeases {
        try validate(address: uri)
        do {
            return try PostgreSQLSyncLeases(uri: uri, password: try credentialPassword())
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
