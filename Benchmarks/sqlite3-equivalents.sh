# The SQL the sqlite3 CLI runs to answer what `commitsctl query --author` and
# `commitsctl show` answer, on the same store: issue #14 measures commitsctl
# against it. Sourced by Benchmarks/run and Benchmarks/query-latency.sh.

# author_sql NAME: the commits whose author matches NAME as a substring
# (ignoring case), newest first, 50 of them: `query --author NAME -n 50`.
author_sql() {
    local needle
    needle=$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]' | sed "s/'/''/g")
    echo "SELECT c.sha, c.committer_date, a.name, substr(c.message, 1, instr(c.message || char(10), char(10)) - 1)
FROM commits c JOIN authors a ON a.id = c.author_id
WHERE c.author_id IN (SELECT id FROM authors WHERE instr(search_text, '$needle') > 0)
ORDER BY c.committer_date DESC LIMIT 50"
}

# show_sql SHA: one commit with its author and parents: `show SHA`.
show_sql() {
    echo "SELECT c.sha, c.committer_date, a.name, a.email, c.message,
 (SELECT group_concat(parent_sha, ' ') FROM commit_parents p WHERE p.commit_id = c.id)
FROM commits c JOIN authors a ON a.id = c.author_id WHERE c.sha = '$1'"
}
