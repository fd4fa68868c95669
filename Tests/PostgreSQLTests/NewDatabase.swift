import MirrorTestSupport
import PostgreSQL

/// A connection to a database of its own on the server the suite started.
func connectToNewDatabase() async throws -> PostgreSQLConnection {
    let server = try await PostgreSQLServer.shared()
    return try PostgreSQLConnection(uri: try server.createDatabase())
}
