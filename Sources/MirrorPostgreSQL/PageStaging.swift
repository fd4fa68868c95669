import MirrorCore
import PostgreSQL
import Foundation

/// A page (or a git batch) goes in as PostgreSQL prefers bulk data: one statement
/// stages it in temporary tables of this connection and stores its people
/// (PageStaging+Statement.swift), then a few set-based statements (commits with
/// their parents and co-authors, memberships numbered from the change counter),
/// all in the caller's transaction with the walk's checkpoint. Two or three round
/// trips per page, whatever its size.
enum PageStaging {
    static func prepare(_ connection: PostgreSQLConnection) throws {
        try connection.executeScript(
            """
            CREATE TEMPORARY TABLE IF NOT EXISTS staged_commits (
                ord integer NOT NULL, sha text NOT NULL, message text NOT NULL, html_url text,
                author_name text NOT NULL, author_email text NOT NULL, author_date text NOT NULL,
                committer_name text NOT NULL, committer_email text NOT NULL, committer_date text NOT NULL,
                parent_count integer NOT NULL, tree_sha text, parents text NOT NULL) ON COMMIT DELETE ROWS;
            CREATE TEMPORARY TABLE IF NOT EXISTS staged_coauthors (
                ord integer NOT NULL, position integer NOT NULL, name text NOT NULL, email text NOT NULL)
                ON COMMIT DELETE ROWS;
            """)
    }

    /// PostgreSQL's text cannot hold U+0000 (SQLite's can): such a character, which
    /// no real commit carries, is stored as U+FFFD rather than failing the page.
    static func storable(_ text: String) -> String {
        // A byte scan: `String.contains` of a string goes through Foundation's
        // NSString search, which cost a tenth of a sync's client time here.
        text.utf8.contains(0) ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
    }

    /// What the planner was last told of `staged_commits` in the open transaction
    /// (ANALYZE's statistics roll back with it): the rows it counted. A page near
    /// that size needs no new ANALYZE, so a batch of ten REST pages runs one, not ten.
    struct Statistics {
        private var analyzedRows: Int?

        /// A new transaction: whatever was analyzed before may have rolled back.
        mutating func transactionBegan() { analyzedRows = nil }

        /// Whether `rows` staged rows need an ANALYZE first, noting it if so.
        mutating func needAnalyze(for rows: Int) -> Bool {
            if let analyzedRows, rows <= 2 * analyzedRows, 2 * rows >= analyzedRows { return false }
            analyzedRows = rows
            return true
        }
    }

    static func upsert(
        _ page: [Commit], repositoryID: Int64, replacingStored: Bool, statistics: inout Statistics,
        on connection: PostgreSQLConnection
    ) throws -> PageOutcome {
        var outcome = PageOutcome()
        guard !page.isEmpty else { return outcome }
        let (commits, replacements) = distinctSHAs(page, replacingStored: replacingStored)
        outcome.updated = replacements
        try stage(commits, people: PagePeople(page, replacingStored: replacingStored), on: connection)
        // The planner knows nothing of a temporary table's rows until told (autovacuum never
        // visits one): without this it guesses 200 distinct shas and answers a page of a few
        // with a scan of every stored commit. Only the columns it joins on: under a millisecond,
        // and once for pages of a size in a transaction.
        if statistics.needAnalyze(for: commits.count) { try connection.executeScript("ANALYZE staged_commits (sha, ord)") }
        let inserted = try insertNewCommits(repositoryID: repositoryID, connection)
        // Every sha new (a first sync's pages): no stored commit can have changed, and
        // the statement that inserted them made them the repository's too.
        if inserted == commits.count {
            outcome.added = inserted
            return outcome
        }
        if replacingStored { outcome.updated += try updateChangedCommits(connection) }
        outcome.added = try addMemberships(repositoryID: repositoryID, connection)
        return outcome
    }

    /// Each sha of the page once (a repeated sha is one commit, so every statement
    /// joins the staged rows by sha as they are), at its first row's place, as the
    /// SQLite store stores a page row by row: over REST (`replacingStored`) with its
    /// last row's data, as each later row replaces the stored one, but its first
    /// row's parents, which no replacement changes; over git with its first row's.
    /// Also how many of those replacements changed the data, which that store
    /// counts as updates (a sha stored before and changed by two rows of one page
    /// is counted once more there: its first row's change, against the stored data).
    private static func distinctSHAs(_ page: [Commit], replacingStored: Bool) -> (commits: [Commit], replacements: Int) {
        var places: [String: Int] = [:]
        var commits: [Commit] = []
        var replacements = 0
        commits.reserveCapacity(page.count)
        for commit in page {
            let sha = storable(commit.sha)
            guard let place = places[sha] else {
                places[sha] = commits.count
                commits.append(commit)
                continue
            }
            guard replacingStored else { continue }
            var replacement = commit
            replacement.parents = commits[place].parents
            if !sameStoredData(commits[place], replacement) { replacements += 1 }
            commits[place] = replacement
        }
        return (commits, replacements)
    }

    /// Whether two rows of one sha store alike: what `updateChangedCommits` compares.
    private static func sameStoredData(_ a: Commit, _ b: Commit) -> Bool {
        a.message == b.message && a.htmlURL == b.htmlURL && a.treeSHA == b.treeSHA
            && a.author.identity.name == b.author.identity.name && a.author.identity.email == b.author.identity.email
            && a.committer.identity.name == b.committer.identity.name
            && a.committer.identity.email == b.committer.identity.email
            && ISO8601Timestamp.format(a.author.date) == ISO8601Timestamp.format(b.author.date)
            && ISO8601Timestamp.format(a.committer.date) == ISO8601Timestamp.format(b.committer.date)
    }

    /// New commits, in page order (their ids keep the mirrored order), with their
    /// parents and co-authors; returns how many commits were new.
    ///
    /// When every commit of the page is new, they join the repository in the same
    /// statement, numbered as `addMemberships` numbers them (no stored commit can
    /// be a member yet): a first sync's page skips that statement's look-ups of
    /// each sha and each membership, a third of a page's time.
    private static func insertNewCommits(repositoryID: Int64, _ connection: PostgreSQLConnection) throws -> Int {
        try connection.executePrepared(
            """
            WITH inserted AS (
                INSERT INTO commits (sha, message, html_url, author_id, author_date, committer_id, committer_date,
                    parent_count, tree_sha)
                SELECT p.sha, p.message, p.html_url, a.id, p.author_date, k.id, p.committer_date, p.parent_count, p.tree_sha
                FROM staged_commits p
                JOIN authors a ON a.name = p.author_name AND a.email = p.author_email
                JOIN authors k ON k.name = p.committer_name AND k.email = p.committer_email
                ORDER BY p.ord
                ON CONFLICT (sha) DO NOTHING
                RETURNING id, sha
            ),
            parents AS (
                INSERT INTO commit_parents (commit_id, position, parent_sha)
                SELECT i.id, parent.position - 1, parent.sha
                FROM inserted i JOIN staged_commits p ON p.sha = i.sha,
                     unnest(string_to_array(p.parents, ' ')) WITH ORDINALITY AS parent(sha, position)
                WHERE p.parents <> ''
            ),
            coauthors AS (
                INSERT INTO commit_coauthors (commit_id, position, author_id)
                SELECT i.id, c.position, a.id
                FROM inserted i JOIN staged_commits p ON p.sha = i.sha
                JOIN staged_coauthors c ON c.ord = p.ord
                JOIN authors a ON a.name = c.name AND a.email = c.email
            ),
            joining AS MATERIALIZED (
                SELECT i.id, p.ord FROM inserted i JOIN staged_commits p ON p.sha = i.sha
                WHERE (SELECT count(*) FROM inserted) = (SELECT count(*) FROM staged_commits)
            ),
            \(numberedMemberships(ofNewCommits: true))
            SELECT count(*) FROM inserted
            """, [repositoryID]
        ).int(0, 0) ?? 0
    }

    /// `joining`'s commits (`id`, page `ord`) join repository `$1`, each new
    /// membership taking the next change number in page order (the cursor
    /// `query --follow` waits on). The counter's row lock, held to the commit,
    /// makes the numbers visible in order. A commit the same statement inserted
    /// cannot be anyone's member yet: those memberships are inserted without the
    /// conflict check (`ofNewCommits`), which costs a look-up per row.
    private static func numberedMemberships(ofNewCommits: Bool) -> String {
        """
        counter AS (
            UPDATE change_counter SET last = last + (SELECT count(*) FROM joining)
            WHERE EXISTS (SELECT 1 FROM joining)
            RETURNING last
        ),
        added AS (
            INSERT INTO repository_commits (repository_id, commit_id, change_seq)
            SELECT $1, j.id, counter.last - count(*) OVER () + row_number() OVER (ORDER BY j.ord)
            FROM joining j CROSS JOIN counter
            \(ofNewCommits ? "" : "ON CONFLICT DO NOTHING")
            RETURNING 1
        )
        """
    }

    /// Stored commits whose data the page changes (newest data wins); their co-authors follow the message.
    private static func updateChangedCommits(_ connection: PostgreSQLConnection) throws -> Int {
        let changed = try connection.executePrepared(
            """
            UPDATE commits c SET message = p.message, html_url = p.html_url, author_id = a.id, author_date = p.author_date,
                committer_id = k.id, committer_date = p.committer_date, tree_sha = p.tree_sha
            FROM staged_commits p
            JOIN authors a ON a.name = p.author_name AND a.email = p.author_email
            JOIN authors k ON k.name = p.committer_name AND k.email = p.committer_email
            WHERE c.sha = p.sha AND (c.message IS DISTINCT FROM p.message OR c.html_url IS DISTINCT FROM p.html_url
                OR c.author_id IS DISTINCT FROM a.id OR c.author_date IS DISTINCT FROM p.author_date
                OR c.committer_id IS DISTINCT FROM k.id OR c.committer_date IS DISTINCT FROM p.committer_date
                OR c.tree_sha IS DISTINCT FROM p.tree_sha)
            RETURNING c.id, p.ord
            """)
        guard changed.count > 0 else { return 0 }
        let ids = BigIntArray((0..<changed.count).compactMap { changed.int64($0, 0) })
        try connection.executePrepared("DELETE FROM commit_coauthors WHERE commit_id = ANY($1::bigint[])", [ids])
        try connection.executePrepared(
            """
            INSERT INTO commit_coauthors (commit_id, position, author_id)
            SELECT c.id, s.position, a.id
            FROM commits c JOIN staged_commits p ON p.sha = c.sha
            JOIN staged_coauthors s ON s.ord = p.ord
            JOIN authors a ON a.name = s.name AND a.email = s.email
            WHERE c.id = ANY($1::bigint[])
            """, [ids])
        return changed.count
    }

    /// The page's commits that are not yet the repository's join it (`numberedMemberships(ofNewCommits:)`).
    private static func addMemberships(repositoryID: Int64, _ connection: PostgreSQLConnection) throws -> Int {
        try connection.executePrepared(
            """
            WITH joining AS MATERIALIZED (
                SELECT c.id, p.ord FROM staged_commits p JOIN commits c ON c.sha = p.sha
                WHERE NOT EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.repository_id = $1 AND rc.commit_id = c.id)
            ),
            \(numberedMemberships(ofNewCommits: false))
            SELECT count(*) FROM added
            """, [repositoryID]
        ).int(0, 0) ?? 0
    }
}
