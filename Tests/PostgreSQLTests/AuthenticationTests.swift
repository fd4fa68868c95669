import Foundation
import MirrorTestSupport
import PostgreSQL
import Testing

/// libpq's own conventions, through the wrapper, against a real server whose
/// `secured` role needs a password (scram-sha-256).
@Suite struct AuthenticationTests {
    private static let password = PostgreSQLServer.passwordRolePassword

    private func securedDatabase() async throws -> (PostgreSQLServer, String) {
        let server = try await PostgreSQLServer.shared()
        try server.ensurePasswordRole()
        return (server, try server.createDatabase(user: PostgreSQLServer.passwordRole))
    }

    @Test func anExplicitPasswordIsUsedAndAWrongOneIsRefusedWithoutEchoingIt() async throws {
        let (_, uri) = try await securedDatabase()
        let connection = try PostgreSQLConnection(uri: uri, password: Self.password)
        #expect(try connection.execute("SELECT current_user").string(0, 0) == PostgreSQLServer.passwordRole)
        let wrong = "wrong-\(UUID().uuidString)"
        let error = try #require(throws: PostgreSQLError.self) { try PostgreSQLConnection(uri: uri, password: wrong) }
        #expect(error.kind == .connection)
        #expect(error.message.contains("password authentication failed"))
        #expect(!error.description.contains(wrong))
        #expect(!error.description.contains("\n"))
    }

    @Test func thePasswordFileIsRead() async throws {
        let (server, uri) = try await securedDatabase()
        let directory = try TemporaryDirectory()
        let passfile = try directory.write("pgpass", "127.0.0.1:\(server.port):*:\(PostgreSQLServer.passwordRole):\(Self.password)\n")
        chmod(passfile, 0o600)
        let connection = try PostgreSQLConnection(uri: uri + "?passfile=\(passfile)")
        #expect(try connection.execute("SELECT current_user").string(0, 0) == PostgreSQLServer.passwordRole)
        #expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(uri: uri + "?passfile=\(directory.path("none"))") }
    }

    @Test func aMissingDatabaseIsOneLineNamingIt() async throws {
        let server = try await PostgreSQLServer.shared()
        let error = try #require(throws: PostgreSQLError.self) {
            try PostgreSQLConnection(uri: server.uri(database: "no_such_database"))
        }
        #expect(error.message.contains("\"no_such_database\" does not exist"))
        #expect(!error.description.contains("\n"))
    }

    @Test func anUnreachableServerFailsWithinTheConnectTimeout() async throws {
        let started = ContinuousClock.now
        // A port nothing listens on: refused at once.
        let error = try #require(throws: PostgreSQLError.self) {
            try PostgreSQLConnection(uri: "postgresql://postgres@127.0.0.1:1/x", connectTimeoutSeconds: 2)
        }
        #expect(error.isConnectionLost)
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test(arguments: [
        ("postgresql://mirror:pw@db.example/mirror", true),
        ("postgres://mirror@db.example:5433/mirror?password=pw", true),
        ("postgresql://mirror@db.example:5432/mirror?sslmode=verify-full", false),
        ("postgresql:///mirror?host=/run/postgresql", false),
    ])
    func aPasswordInTheURIIsNoticedWhereverItIs(uri: String, hasPassword: Bool) throws {
        let parsed = try ConnectionURI(uri)
        #expect(parsed.hasPassword == hasPassword)
        #expect(ConnectionURI.isPostgreSQL(uri))
    }

    @Test func uriPartsAreReadByLibpq() throws {
        let parsed = try ConnectionURI("postgresql://mirror@db.example:5433/mirror?sslmode=verify-full")
        #expect(parsed.host == "db.example" && parsed.port == "5433" && parsed.user == "mirror" && parsed.database == "mirror")
        #expect(!ConnectionURI.isPostgreSQL("/var/lib/commits-mirror/commits.sqlite"))
        #expect(throws: PostgreSQLError.self) { try ConnectionURI("postgresql://[broken") }
    }
}
