import MirrorBookkeeping
import Testing

/// The shared bookkeeping's statements are written once with SQLite's `?` and
/// `?N` parameters; PostgreSQL gets them numbered `$N`, as SQLite numbers them.
@Suite struct PortableSQLTests {
    @Test func bareParametersAreNumberedInOrder() {
        let sql = PortableSQL("UPDATE t SET a = ?, b = ? WHERE id = ?")
        #expect(sql.sqlite == "UPDATE t SET a = ?, b = ? WHERE id = ?")
        #expect(sql.postgreSQL == "UPDATE t SET a = $1, b = $2 WHERE id = $3")
    }

    @Test func numberedParametersKeepTheirNumbersAndABareOneFollowsTheHighest() {
        #expect(PortableSQL("WHERE a = ?2 AND b = ?1 OR c = ?1").postgreSQL == "WHERE a = $2 AND b = $1 OR c = $1")
        #expect(PortableSQL("WHERE a = ?3 AND b = ?").postgreSQL == "WHERE a = $3 AND b = $4")
        #expect(PortableSQL("SELECT count(*) FROM t").postgreSQL == "SELECT count(*) FROM t")
    }

    @Test func namesAreComparedAsEachSchemaFoldsThem() {
        let sql = PortableSQL(names: { "SELECT 1 FROM r WHERE \($0.same("name", "?")) ORDER BY \($0.order("name"))" })
        #expect(sql.sqlite == "SELECT 1 FROM r WHERE name = ? ORDER BY name")
        #expect(sql.postgreSQL == "SELECT 1 FROM r WHERE lower(name) = lower($1) ORDER BY lower(name COLLATE \"C\")")
    }
}
