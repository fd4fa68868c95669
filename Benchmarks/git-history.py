#!/usr/bin/env python3
"""A git history shaped like git/git's, written by git itself.

Prints a `git fast-import` stream of about COMMITS commits, seeded (every run
writes the same objects), shaped like git/git's history rather than cheaper
than it: about a quarter of the commits are merges (topic branches of a few
commits each, forked from `main` or the long-lived `maint` and merged back, and
`maint` merged into `main` now and then); messages average about 500 bytes
with their trailers (Signed-off-by, often the maintainer's too, Reviewed-by,
Helped-by, the odd Co-authored-by); one person wrote about 35 % of the commits
and 2,000 more follow a long tail; six subprojects with roots of their own are
merged in as subtrees (seven roots in all), and merged again as they grow.
Commits change one to four of about 3,000 files; a merge's tree holds what its
branch changed. All commits are on `main` but those of the topics still open
at the end, left on the ref `scratch` (with the side lines) for the caller to
delete. Prints the shape it wrote to stderr.

    Benchmarks/git-history.py 82000 | git -C REPO fast-import --quiet
"""

import itertools
import random
import sys

WORDS = (
    "the a of to in and is that for it with as was on be by this are or not from at which but have an they "
    "commit tree blob index object pack refs branch merge rebase fetch push remote config diff patch hunk "
    "header trailer signed reviewed tested reported acked helped cache lock file path directory entry "
    "buffer string array hash table list queue stack graph walk revision history parent child ancestor "
    "error warning message option flag argument command builtin test script documentation release fix "
    "avoid handle ensure allow prevent support teach introduce refactor simplify rename drop add remove "
    "update use instead when because so that without before after while during since until unless"
).split()
VERBS = "Fix Teach Avoid Handle Introduce Refactor Simplify Drop Add Remove Update Use Allow Prevent Document".split()
SCRATCH = "refs/heads/scratch"
MAIN = "refs/heads/main"
AREAS = "refs pack diff merge rebase fetch push config index object builtin t doc grep log commit tree".split()
SUBPROJECTS = "gitk-git git-gui contrib/subtree gitweb po sha1collisiondetection".split()


class History:
    def __init__(self, rng, out):
        self.rng, self.out = rng, out
        self.people = [(f"Developer {i}", f"dev{i}@example.org") for i in range(2001)]
        # The maintainer writes about 35 %; the rest share the remainder Zipf-like.
        tail = [1 / i for i in range(1, len(self.people))]
        weights = [0.35 * sum(tail) / 0.65] + tail
        self.cumulative = list(itertools.accumulate(weights))
        self.mark = 0
        self.when = 1_100_000_000
        self.written = self.merges = self.message_bytes = 0

    def person(self):
        return self.rng.choices(self.people, cum_weights=self.cumulative)[0]

    def words(self, low, high):
        return " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(low, high)))

    def message(self, subject, body_lines, name, email):
        rng = self.rng
        body = "\n".join(self.words(6, 12) for _ in range(body_lines))
        trailers = []
        for kind, chance in (("Helped-by", 0.12), ("Reviewed-by", 0.15), ("Co-authored-by", 0.05)):
            if rng.random() < chance:
                other, other_email = self.person()
                trailers.append(f"{kind}: {other} <{other_email}>")
        trailers.append(f"Signed-off-by: {name} <{email}>")
        if name != self.people[0][0] and rng.random() < 0.85:
            trailers.append(f"Signed-off-by: {self.people[0][0]} <{self.people[0][1]}>")
        return subject + ("\n\n" + body if body else "") + "\n\n" + "\n".join(trailers) + "\n"

    def commit(self, ref, parents, subject, body_lines, changes):
        """Writes one commit; changes maps paths to contents (None: the commit's own mark)."""
        rng = self.rng
        self.mark += 1
        self.when += rng.randint(20, 2400)
        name, email = self.person()
        data = self.message(subject, body_lines, name, email).encode()
        lines = [
            f"commit {ref}", f"mark :{self.mark}", f"author {name} <{email}> {self.when} +0000",
            f"committer {name} <{email}> {self.when} +0000", f"data {len(data)}",
        ]
        if not parents:
            self.out.write(f"reset {ref}\n".encode())
        self.out.write(("\n".join(lines) + "\n").encode() + data)
        if parents:
            self.out.write(f"from :{parents[0]}\n".encode())
            for parent in parents[1:]:
                self.out.write(f"merge :{parent}\n".encode())
        for path, content in changes.items():
            blob = (content if content is not None else f"{self.mark}\n").encode()
            self.out.write(f"M 100644 inline {path}\ndata {len(blob)}\n".encode() + blob + b"\n")
        self.written += 1
        self.message_bytes += len(data)
        self.merges += len(parents) > 1
        return self.mark

    def subject(self):
        return f"{self.rng.choice(AREAS)}: {self.rng.choice(VERBS)} {self.words(3, 8)}"

    def body_lines(self):
        return min(int(self.rng.expovariate(1 / 8.7)), 40)

    def edit(self):
        """A commit's changes: one to four files, each given the commit's own mark as content."""
        chosen = {}
        for _ in range(self.rng.choice((1, 1, 1, 2, 2, 3, 4))):
            chosen[f"{self.rng.choice(AREAS)}/file{self.rng.randrange(190)}.c"] = None
        return chosen


class Line:
    """A branch line: its tip, the line it merges into, and what it changed since its last merge
    (path to content)."""

    def __init__(self, name, tip, base=None):
        self.name, self.tip, self.base, self.changed = name, tip, base, {}

    def grow(self, history, ref, changes):
        self.tip = history.commit(ref, [self.tip] if self.tip else [], history.subject(), history.body_lines(), changes)
        self.changed.update({path: f"{self.tip}\n" if content is None else content for path, content in changes.items()})


def merge(history, into, line, subject, prefix=""):
    changes = {prefix + path: content for path, content in line.changed.items()}
    into.tip = history.commit(MAIN if into.name == "main" else SCRATCH, [into.tip, line.tip], subject,
                              history.rng.randint(0, 8), changes)
    into.changed.update(changes)
    line.changed = {}


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 82000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    history = History(rng, sys.stdout.buffer)
    trunk = Line("main", None)
    trunk.grow(history, MAIN, history.edit())
    maint = Line("maint", trunk.tip)
    subprojects = [Line(name, None) for name in SUBPROJECTS]
    topics = []
    topic_number = 0
    while history.written < count - 1:
        roll = rng.random()
        if roll < 0.004:
            project = rng.choice(subprojects)
            for _ in range(rng.randint(1, 6)):
                project.grow(history, SCRATCH, {f"file{rng.randrange(20)}": None})
            merge(history, trunk, project, f"Merge {project.name} (subtree)", project.name + "/")
        elif roll < 0.014:
            merge(history, trunk, maint, "Merge branch 'maint'")
        elif roll < 0.05:
            trunk.grow(history, MAIN, history.edit())
        elif roll < 0.30 and len(topics) < 12:
            topic_number += 1
            base = maint if rng.random() < 0.15 else trunk
            topic = Line(f"dev/topic{topic_number}", base.tip, base)
            topic.grow(history, SCRATCH, history.edit())
            topics.append(topic)
        elif roll < 0.66 and topics:
            topic = rng.choice(topics)
            topic.grow(history, SCRATCH, history.edit())
        elif topics:
            topic = topics.pop(rng.randrange(len(topics)))
            merge(history, topic.base, topic, f"Merge branch '{topic.name}'")
        else:
            trunk.grow(history, MAIN, history.edit())
    # Every subproject's root reaches main; topics still open stay off it, as a real project's do.
    for project in subprojects:
        if project.tip is None:
            project.grow(history, SCRATCH, {"README": None})
            merge(history, trunk, project, f"Merge {project.name} (subtree)", project.name + "/")
    if maint.changed:
        merge(history, trunk, maint, "Merge branch 'maint'")
    history.out.write(b"done\n")
    print(f"git-history.py: {history.written} commits, {history.merges} merges, "
          f"{history.message_bytes // history.written} message bytes per commit", file=sys.stderr)


if __name__ == "__main__":
    main()
