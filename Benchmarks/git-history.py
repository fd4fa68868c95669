#!/usr/bin/env python3
"""A git history shaped like a long-lived project's, written by git itself.

Prints a `git fast-import` stream of COMMITS commits, seeded (every run writes
the same objects). Topic branches fork from main (up to 8 open at once) while
main moves on, and are merged back with `Merge branch '...'` commits, about a
fifth of all commits. Messages are a subject and a wrapped body of 0-24 lines
with a Signed-off-by and the odd Co-authored-by trailer; 2,000 people share the
work Zipf-like; every commit changes one of 3,000 files. All commits are on
`main` but those of the topics still open at the end (a few dozen), left on the
ref `scratch` for the caller to delete. Benchmarks/git-clone.sh serves the
history with github-sim and times `git clone --filter=tree:0` beside
`commitsctl sync` (issue #30, goal 1).

    Benchmarks/git-history.py 82000 | git -C REPO fast-import --quiet
"""

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
AREAS = "refs pack diff merge rebase fetch push config index object builtin t doc grep log commit tree".split()


def wrapped(rng, lines):
    out = []
    for _ in range(lines):
        out.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 12))))
    return out


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 82000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(seed)
    people = [(f"Developer {i}", f"dev{i}@example.org") for i in range(2000)]
    weights = [1 / (i + 1) for i in range(len(people))]
    out = sys.stdout.buffer
    when = 1_100_000_000
    mark = 0
    main_tip = None
    written = 0
    topic = 0
    # Every topic commit names its parent, so one scratch ref carries them all (deleted afterwards).

    def commit(ref, parents, subject, body_lines):
        nonlocal mark, when, written
        mark += 1
        when += rng.randint(30, 3600)
        name, email = rng.choices(people, weights)[0]
        body = wrapped(rng, body_lines)
        trailers = [f"Signed-off-by: {name} <{email}>"]
        if rng.random() < 0.05:
            co_name, co_email = rng.choices(people, weights)[0]
            trailers.append(f"Co-authored-by: {co_name} <{co_email}>")
        message = subject + ("\n\n" + "\n".join(body) if body else "") + "\n\n" + "\n".join(trailers) + "\n"
        data = message.encode()
        path = f"{rng.choice(AREAS)}/file{rng.randrange(3000)}.c"
        content = f"{mark}\n".encode()
        lines = [
            f"commit {ref}",
            f"mark :{mark}",
            f"author {name} <{email}> {when} +0000",
            f"committer {name} <{email}> {when} +0000",
            f"data {len(data)}",
        ]
        out.write(("\n".join(lines) + "\n").encode() + data)
        if parents:
            out.write(f"from :{parents[0]}\n".encode())
            for parent in parents[1:]:
                out.write(f"merge :{parent}\n".encode())
        out.write(f"M 100644 inline {path}\ndata {len(content)}\n".encode() + content + b"\n")
        written += 1
        return mark

    def subject():
        return f"{rng.choice(AREAS)}: {rng.choice(VERBS)} " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8)))

    # Open topics, each a fork point's descendant; main moves on while they grow.
    topics = []
    while written < count:
        left = count - written
        roll = rng.random()
        if main_tip is None or left == 1 or (roll < 0.25 and not topics):
            main_tip = commit("refs/heads/main", [main_tip] if main_tip else [], subject(), rng.randint(0, 24))
        elif roll < 0.45 and len(topics) < 8 and left > 2:
            topic += 1
            topics.append([topic, commit(SCRATCH, [main_tip], subject(), rng.randint(0, 24)), 1])
        elif roll < 0.75 and topics and left > 2:
            chosen = rng.choice(topics)
            chosen[1] = commit(SCRATCH, [chosen[1]], subject(), rng.randint(0, 24))
            chosen[2] += 1
        elif topics:
            chosen = topics.pop(rng.randrange(len(topics)))
            main_tip = commit(
                "refs/heads/main", [main_tip, chosen[1]], f"Merge branch 'dev/topic{chosen[0]}'", rng.randint(0, 6))
        else:
            main_tip = commit("refs/heads/main", [main_tip], subject(), rng.randint(0, 24))
    # Topics still open are left unmerged, as a real project's are: not on main.
    out.write(b"done\n")


if __name__ == "__main__":
    main()
