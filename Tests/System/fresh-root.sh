#!/usr/bin/env bash
# The README's first two commands on a fresh machine: a fresh clone of this
# repository in a clean Debian 12 root (the system test's cached debootstrap,
# copied), with the Swift toolchain and its package mirror mounted read-only
# and ../shared beside the clone, runs `make test` and then `make demo` as
# root, installing what is missing itself. Run by hand (it builds everything
# from nothing: about 15 minutes on 2 cores).
#   Tests/System/fresh-root.sh [REV]    (default: HEAD of this clone)
set -euo pipefail
cd "$(dirname "$0")/../.."
say() { echo "fresh-root: $*"; }
[[ $(id -u) -eq 0 ]] || { say "SKIPPED: needs root (systemd-nspawn)"; exit 0; }
cache=${COMMITS_MIRROR_SYSTEST_CACHE:-/var/cache/commits-mirror/debootstrap-bookworm}
[[ -d $cache ]] || { say "no cached root at $cache: run Tests/System/run.sh once first"; exit 1; }
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")
rev=${1:-HEAD}

work=$(mktemp -d /var/tmp/commits-mirror-fresh.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
cp -a "$cache" "$root"
mkdir -p "$root/src" "$root$toolchain"
git clone -q "$PWD" "$root/src/main"
git -C "$root/src/main" checkout -q "$rev"
binds=(--bind-ro="$toolchain" --bind="$root/src:/src")
[[ -d ../shared ]] && binds+=(--bind-ro="$(readlink -f ../shared):/src/shared")
# Swift packages come from the machine's mirror, as on the host (git's insteadOf).
if [[ -d /opt/swift-packages ]]; then
    binds+=(--bind-ro=/opt/swift-packages)
    printf '[url "/opt/swift-packages/"]\n\tinsteadOf = https://github.com/\n' > "$root/etc/gitconfig"
fi
inside() {
    systemd-nspawn --quiet --directory="$root" --register=no --keep-unit --resolv-conf=replace-host "${binds[@]}" \
        --setenv=PATH="$toolchain/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin" --setenv=HOME=/root --chdir=/src/main "$@"
}
# What a Debian 12 machine "with the Swift toolchain" has besides the toolchain itself.
say "the toolchain's own runtime needs (git, make, a C library and linker)"
inside apt-get update -qq
inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    git make ca-certificates binutils libc6-dev libgcc-12-dev libstdc++-12-dev libcurl4 libxml2 libncurses6 \
    libsqlite3-0 libz3-4 pkg-config tzdata python3-minimal >/dev/null
# Full output kept beside the work directory, so a failure can be read afterwards.
log=${work}.log
say "make test (log: $log)"
inside make test >"$log" 2>&1 || { grep -E "✘|error|Fatal" "$log" | head -40; say "make test FAILED"; exit 1; }
grep -E "Test run with" "$log" | tail -1
say "make demo"
inside make demo 2>&1 | tail -12
