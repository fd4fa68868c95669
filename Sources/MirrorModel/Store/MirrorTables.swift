/// The mirror's tables as both backends hold them, in the order a copy loads
/// them (a row's references come before it): what `copy-store` moves. Derived
/// data is not listed; each store rebuilds its own (the message index, the
/// per-author counts kept by triggers).
public struct MirrorTable: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case text
        case integer
        /// 0 or 1 (SQLite's integer, PostgreSQL's boolean).
        case flag
        /// Bytes (SQLite's BLOB, PostgreSQL's bytea), carried as lowercase hex digits.
        case bytes
    }

    public struct Column: Sendable, Equatable {
        public var name: String
        public var kind: Kind
    }

    public var name: String
    public var columns: [Column]
    /// The column list in the order rows carry their values.
    public var columnList: String { columns.map(\.name).joined(separator: ", ") }
    /// The order a snapshot reads it in (a key, so both stores read alike).
    public var key: String

    init(_ name: String, key: String, _ columns: [(String, Kind)]) {
        self.name = name
        self.key = key
        self.columns = columns.map { Column(name: $0.0, kind: $0.1) }
    }

    public static let all: [MirrorTable] = [
        MirrorTable(
            "repositories", key: "id",
            [
                ("id", .integer), ("full_name", .text), ("github_id", .integer), ("default_branch", .text),
                ("html_url", .text), ("added_at", .text), ("state", .text), ("state_changed_at", .text),
                ("state_reason", .text),
            ]),
        MirrorTable("repository_names", key: "name", [("name", .text), ("repository_id", .integer)]),
        MirrorTable(
            "authors", key: "id",
            [("id", .integer), ("name", .text), ("email", .text), ("login", .text), ("search_text", .text)]),
        MirrorTable(
            "commits", key: "id",
            [
                ("id", .integer), ("sha", .text), ("message", .text), ("html_url", .text), ("author_id", .integer),
                ("author_date", .text), ("committer_id", .integer), ("committer_date", .text), ("parent_count", .integer),
                ("tree_sha", .text), ("off_branch", .flag),
            ]),
        MirrorTable(
            "commit_parents", key: "commit_id, position",
            [("commit_id", .integer), ("position", .integer), ("parent_sha", .text)]),
        MirrorTable(
            "commit_coauthors", key: "commit_id, position",
            [("commit_id", .integer), ("position", .integer), ("author_id", .integer)]),
        MirrorTable("change_counter", key: "id", [("id", .integer), ("last", .integer)]),
        MirrorTable(
            "repository_commits", key: "repository_id, commit_id",
            [("repository_id", .integer), ("commit_id", .integer), ("off_branch_since", .text), ("change_seq", .integer)]),
        MirrorTable(
            "sync_state", key: "repository_id, branch",
            [
                ("repository_id", .integer), ("branch", .text), ("head_sha", .text), ("head_etag", .text),
                ("complete", .flag), ("last_attempt_at", .text), ("last_success_at", .text), ("last_error", .text),
                ("rate_limit_remaining", .integer), ("rate_limit_reset_at", .text),
            ]),
        MirrorTable(
            "repository_branches", key: "id",
            [("id", .integer), ("repository_id", .integer), ("name", .text), ("state", .text), ("gone_since", .text)]),
        MirrorTable("branch_commits", key: "branch_id, commit_id", [("branch_id", .integer), ("commit_id", .integer)]),
        MirrorTable(
            "sync_walks", key: "id",
            [
                ("id", .integer), ("repository_id", .integer), ("branch", .text), ("head_sha", .text),
                ("next_url", .text), ("pages_done", .integer), ("pages_total", .integer), ("started_at", .text),
                ("listing_sha", .text),
            ]),
        MirrorTable("sync_frontier", key: "walk_id, sha", [("walk_id", .integer), ("sha", .text)]),
        MirrorTable(
            "owner_listings", key: "owner", [("owner", .text), ("kind", .text), ("pages", .text), ("listed_at", .text)]),
        MirrorTable(
            "branch_listings", key: "repository_id", [("repository_id", .integer), ("pages", .text), ("listed_at", .text)]),
        MirrorTable("paths", key: "id", [("id", .integer), ("path", .bytes)]),
        MirrorTable(
            "commit_changes", key: "commit_id, parent, path_id",
            [
                ("commit_id", .integer), ("parent", .integer), ("path_id", .integer), ("old_mode", .integer),
                ("old_object", .bytes), ("new_mode", .integer), ("new_object", .bytes),
            ]),
        MirrorTable("commit_changes_read", key: "commit_id", [("commit_id", .integer)]),
        MirrorTable(
            "tags", key: "id",
            [
                ("id", .integer), ("repository_id", .integer), ("name", .text), ("object_sha", .text),
                ("commit_sha", .text), ("annotated", .flag), ("tagger_name", .text), ("tagger_email", .text),
                ("tagged_at", .text), ("message", .text), ("first_seen_at", .text), ("ended_at", .text),
            ]),
        MirrorTable(
            "tag_containment", key: "repository_id, commit_id",
            [("repository_id", .integer), ("commit_id", .integer), ("tag_id", .integer)]),
        MirrorTable(
            "tag_listings", key: "repository_id",
            [("repository_id", .integer), ("etag", .text), ("selection", .text), ("listed_at", .text)]),
        MirrorTable(
            "pull_requests", key: "repository_id, number",
            [
                ("repository_id", .integer), ("number", .integer), ("title", .text), ("state", .text),
                ("author_login", .text), ("base_ref", .text), ("head_ref", .text), ("head_sha", .text),
                ("merge_commit_sha", .text), ("created_at", .text), ("updated_at", .text), ("closed_at", .text),
                ("merged_at", .text),
            ]),
        MirrorTable(
            "pull_request_listings", key: "repository_id",
            [("repository_id", .integer), ("etag", .text), ("updated_through", .text), ("listed_at", .text)]),
        MirrorTable(
            "request_counts", key: "token, minute, kind",
            [
                ("token", .text), ("minute", .text), ("kind", .text), ("requests", .integer), ("not_modified", .integer),
                ("points", .integer),
            ]),
    ]
}
