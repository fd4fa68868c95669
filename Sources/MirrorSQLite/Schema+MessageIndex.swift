extension Schema {
    static let messageIndexWatermarkVersion = 11
    static let messageIndexMergesVersion = 12

    /// Version 11: the message index behind a watermark (docs/ARCHITECTURE.md,
    /// "The message index"). Indexing each batch's messages as it was stored
    /// was a large share of a first sync (most of it merging FTS5's many small
    /// segments); built in large chunks after the rows, it costs less, and a
    /// search stays exact meanwhile.
    static let messageIndexWatermark = """
        -- Commits whose id is at most through_id are in commits_fts, with their current
        -- messages; later ones are not yet, and a message search tests them row by row
        -- (MessageSearch). MirrorStore.catchUpMessageIndex moves it, chunk by chunk.
        CREATE TABLE message_index_coverage (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            through_id INTEGER NOT NULL
        );
        -- Every commit stored so far was indexed in the transaction that stored it.
        INSERT INTO message_index_coverage (id, through_id) SELECT 1, coalesce(max(id), 0) FROM commits;

        -- A row the index covers keeps the index exact as it changes or goes; a row
        -- beyond the watermark is left to the catch-up. A new row at or below it (SQLite
        -- gives a new row the id of a deleted newest one) is indexed at once.
        DROP TRIGGER commits_fts_after_delete;
        DROP TRIGGER commits_fts_after_update;
        CREATE TRIGGER commits_fts_after_insert AFTER INSERT ON commits
        WHEN new.id <= (SELECT through_id FROM message_index_coverage) BEGIN
            INSERT INTO commits_fts (rowid, message) VALUES (new.id, new.message);
        END;
        CREATE TRIGGER commits_fts_after_delete AFTER DELETE ON commits
        WHEN old.id <= (SELECT through_id FROM message_index_coverage) BEGIN
            INSERT INTO commits_fts (commits_fts, rowid, message) VALUES ('delete', old.id, old.message);
        END;
        CREATE TRIGGER commits_fts_after_update AFTER UPDATE OF id, message ON commits
        WHEN old.id IS NOT new.id OR old.message IS NOT new.message BEGIN
            INSERT INTO commits_fts (commits_fts, rowid, message)
            SELECT 'delete', old.id, old.message WHERE old.id <= (SELECT through_id FROM message_index_coverage);
            INSERT INTO commits_fts (rowid, message)
            SELECT new.id, new.message WHERE new.id <= (SELECT through_id FROM message_index_coverage);
        END;
        """

    /// Version 12: FTS5 merges the index's segments 16 at a time instead of 4
    /// (its `automerge` option, kept in `commits_fts_config`). A catch-up writes
    /// a segment each time its in-memory terms fill, and merging them four by
    /// four rewrote the same postings level after level, so wider merges build
    /// the index sooner with searches as fast (docs/MEASURED-REASONS.md,
    /// "Measured reasons: the message index").
    static let messageIndexMerges = """
        INSERT INTO commits_fts (commits_fts, rank) VALUES ('automerge', 16);
        """
}
