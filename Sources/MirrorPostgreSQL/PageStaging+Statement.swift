import MirrorCore
import PostgreSQL

// A page into the staging tables in one statement: each column of the page goes
// as one binary array parameter (BinaryArray), unnested into its table. Three
// binary COPYs did this before, two round trips each, plus a fourth to empty the
// tables: on this 2-core machine a round trip is a wake-up of the server and then
// of the client, and a REST page of 100 commits spent about as long between its
// statements as in them (BENCHMARKS.md §8).

extension PageStaging {
    /// Stages `commits` (each sha once, in page order: `ord` is the place) with
    /// their co-authors, and stores the page's people in `authors` in the same
    /// statement: every person once, new ones numbered in the order the page first
    /// names them; a login GitHub gives is kept, none never erases one. Only the
    /// people not stored as they are go into the insert: a stored one it would
    /// leave alone would still be locked by `ON CONFLICT`.
    ///
    /// The earlier page's staged rows are deleted by the same statement: its
    /// sub-statements share one snapshot, so the deletes do not see the rows
    /// its inserts add.
    static func stage(_ commits: [Commit], people: PagePeople, on connection: PostgreSQLConnection) throws {
        try connection.executePrepared(stageStatement, arrays: commitColumns(commits) + coAuthorColumns(commits) + people.columns)
    }

    static let stageStatement = """
        WITH cleared_commits AS (DELETE FROM staged_commits),
        cleared_coauthors AS (DELETE FROM staged_coauthors),
        page AS (
            INSERT INTO staged_commits (ord, sha, message, html_url, author_name, author_email, author_date,
                committer_name, committer_email, committer_date, parent_count, tree_sha, parents)
            SELECT * FROM unnest($1::integer[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                $8::text[], $9::text[], $10::text[], $11::integer[], $12::text[], $13::text[])
        ),
        coauthors AS (
            INSERT INTO staged_coauthors (ord, position, name, email)
            SELECT * FROM unnest($14::integer[], $15::integer[], $16::text[], $17::text[])
        ),
        people AS (
            SELECT * FROM unnest($18::integer[], $19::text[], $20::text[], $21::text[], $22::text[])
                AS person(ord, name, email, login, search)
        )
        INSERT INTO authors (name, email, login, search_text)
        SELECT s.name, s.email, s.login, s.search FROM people s
        WHERE NOT EXISTS (
            SELECT 1 FROM authors a
            WHERE a.name = s.name AND a.email = s.email AND (s.login IS NULL OR a.login = s.login))
        ORDER BY s.ord
        ON CONFLICT (name, email) DO UPDATE SET login = excluded.login
        WHERE excluded.login IS NOT NULL AND authors.login IS DISTINCT FROM excluded.login
        """

    /// `staged_commits`' columns, in its order; `ord` is each commit's place.
    private static func commitColumns(_ commits: [Commit]) -> [BinaryArray] {
        let optional = { (text: String?) in text.map(storable) }
        return [
            .integer(commits.indices.map { Int32($0) }),
            .text(commits.map { storable($0.sha) }),
            .text(commits.map { storable($0.message) }),
            .text(commits.map { optional($0.htmlURL) }),
            .text(commits.map { storable($0.author.identity.name) }),
            .text(commits.map { storable($0.author.identity.email) }),
            .text(commits.map { ISO8601Timestamp.format($0.author.date) }),
            .text(commits.map { storable($0.committer.identity.name) }),
            .text(commits.map { storable($0.committer.identity.email) }),
            .text(commits.map { ISO8601Timestamp.format($0.committer.date) }),
            .integer(commits.map { Int32($0.parents.count) }),
            .text(commits.map { optional($0.treeSHA) }),
            .text(commits.map { $0.parents.map(storable).joined(separator: " ") }),
        ]
    }

    /// `staged_coauthors`' columns: each commit's co-authors, by the commit's
    /// `ord` and their place among its trailers.
    private static func coAuthorColumns(_ commits: [Commit]) -> [BinaryArray] {
        var ords: [Int32] = []
        var positions: [Int32] = []
        var names: [String?] = []
        var emails: [String?] = []
        for (ord, commit) in commits.enumerated() {
            for (position, person) in commit.coAuthors.enumerated() {
                ords.append(Int32(ord))
                positions.append(Int32(position))
                names.append(storable(person.name))
                emails.append(storable(person.email))
            }
        }
        return [.integer(ords), .integer(positions), .text(names), .text(emails)]
    }
}
