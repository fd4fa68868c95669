#!/usr/bin/env bash
# `make deb`: dist/commits-mirror_<version>_amd64.deb with dpkg-deb (no debhelper).
# Release binaries with the Swift runtime linked in (so no Swift toolchain on the
# target), the units with ExecStart in /usr/bin, the example configuration as a
# conffile, man pages, shell completions, the Prometheus rules and Grafana dashboard, the README
# and docs/. Depends: is computed from the
# binaries' NEEDED libraries, as dpkg-shlibdeps would.
#   .ci/packaging/build-deb.sh [BIN_DIR]   (default: a --static-swift-stdlib release build)
set -euo pipefail
cd "$(dirname "$0")/../.."

version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/MirrorCore/Support/MirrorVersion.swift)
arch=$(dpkg --print-architecture)
bin=${1:-}
if [[ -z $bin ]]; then
    # A scratch path of its own: static and dynamic release builds would otherwise rebuild each other.
    swift build -c release --static-swift-stdlib --scratch-path .build-static --product commitsctl
    swift build -c release --static-swift-stdlib --scratch-path .build-static --product commitsd
    bin=$(swift build -c release --static-swift-stdlib --scratch-path .build-static --show-bin-path)
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
pkg=$root/commits-mirror
install -d "$pkg/DEBIAN" "$pkg/usr/bin" "$pkg/lib/systemd/system" "$pkg/etc/commits-mirror" \
    "$pkg/usr/share/man/man1" "$pkg/usr/share/doc/commits-mirror" \
    "$pkg/usr/share/bash-completion/completions" "$pkg/usr/share/zsh/vendor-completions" \
    "$pkg/usr/share/fish/vendor_completions.d"

for tool in commitsctl commitsd; do
    install -m 755 -s "$bin/$tool" "$pkg/usr/bin/$tool"
    # ArgumentParser writes the completion scripts and (via --experimental-dump-help) the man page.
    # (bash completions are sourced, not run: no #! line.)
    "$bin/$tool" --generate-completion-script bash | sed '1{/^#!/d}' > "$pkg/usr/share/bash-completion/completions/$tool"
    "$bin/$tool" --generate-completion-script zsh > "$pkg/usr/share/zsh/vendor-completions/_$tool"
    "$bin/$tool" --generate-completion-script fish > "$pkg/usr/share/fish/vendor_completions.d/$tool.fish"
    .ci/packaging/man-page.sh "$bin/$tool" "$version" | gzip -9n > "$pkg/usr/share/man/man1/$tool.1.gz"
done
# commitsctl alone is linked position-dependent (Package.swift; docs/OPERATIONS.md, "commitsctl is not a
# PIE"), and the lintian override says so: refuse a package where that or commitsd's PIE has changed.
for expected in commitsctl:EXEC commitsd:DYN; do
    type=$(readelf -h "$pkg/usr/bin/${expected%%:*}" | awk '/Type:/ {print $2}')
    [[ $type == "${expected#*:}" ]] || { echo "build-deb: ${expected%%:*} is an ELF $type, expected ${expected#*:}" >&2; exit 1; }
done
# commitsctl carries the C++ runtime (docs/OPERATIONS.md, "commitsctl carries its C++ runtime"): refuse a
# package where the link in Sources/commitsctl/StaticLibraries no longer finds the archive.
if objdump -p "$pkg/usr/bin/commitsctl" | awk '/NEEDED/ {print $2}' | grep -q '^libstdc++'; then
    echo "build-deb: commitsctl needs the shared libstdc++; is $(readlink Sources/commitsctl/StaticLibraries/libstdc++.a) there?" >&2
    exit 1
fi
chmod 644 "$pkg"/usr/share/*/completions/* "$pkg"/usr/share/zsh/vendor-completions/* \
    "$pkg"/usr/share/fish/vendor_completions.d/*

for unit in systemd/*.service systemd/*.timer; do
    sed 's#/usr/local/bin/#/usr/bin/#g' "$unit" > "$pkg/lib/systemd/system/$(basename "$unit")"
    chmod 644 "$pkg/lib/systemd/system/$(basename "$unit")"
done
install -m 644 config/commits-mirror.example.yaml "$pkg/etc/commits-mirror/config.yaml"
install -m 644 .ci/packaging/debian/copyright "$pkg/usr/share/doc/commits-mirror/copyright"
install -m 644 README.md "$pkg/usr/share/doc/commits-mirror/README.md"
# The alerting rules, their promtool tests, a scrape configuration and the Grafana dashboard
# (docs/MONITORING.md), where an operator's Prometheus can name them.
install -D -m 644 -t "$pkg/usr/share/commits-mirror/monitoring" monitoring/commits-mirror.rules.yml \
    monitoring/commits-mirror.rules.test.yml monitoring/prometheus.example.yml monitoring/grafana-dashboard.json
# The README is a front page: the reference it links to comes along, at the same relative path.
install -d "$pkg/usr/share/doc/commits-mirror/docs"
install -m 644 docs/*.md "$pkg/usr/share/doc/commits-mirror/docs/"
install -D -m 644 .ci/packaging/debian/lintian-overrides "$pkg/usr/share/lintian/overrides/commits-mirror"
sed "s/@VERSION@/$version/; s/@DATE@/$(date -R -d @"${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")/" \
    .ci/packaging/debian/changelog | gzip -9n > "$pkg/usr/share/doc/commits-mirror/changelog.gz"

# Depends: the package of every shared library the binaries need.
libraries=$(for tool in "$pkg"/usr/bin/*; do objdump -p "$tool" | awk '/NEEDED/ {print $2}'; done | sort -u)
depends=$(for library in $libraries; do
    path=$(ldconfig -p | awk -v l="$library" '$1 == l && /x86-64|x86_64|64bit/ {print $NF; exit}')
    [[ -n $path ]] || { echo "build-deb: cannot find $library" >&2; exit 1; }
    dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1 || dpkg -S "$path" | head -1 | cut -d: -f1
done | sort -u | paste -sd, | sed 's/,/, /g')
# libcurl4 and libpq5: loaded with dlopen on the first request (Sources/CCurl) and
# the first PostgreSQL connection (Sources/CPostgreSQL), so no binary names them as
# NEEDED. adduser for postinst; dash's builtin kill serves ExecReload, so no procps.
depends="$depends, libcurl4, libpq5, adduser"

for script in postinst prerm postrm; do install -m 755 ".ci/packaging/debian/$script" "$pkg/DEBIAN/$script"; done
install -m 644 .ci/packaging/debian/conffiles "$pkg/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
sed "s/@VERSION@/$version/; s/@ARCH@/$arch/; s/@DEPENDS@/$depends/; s/@SIZE@/$size/" .ci/packaging/debian/control > "$pkg/DEBIAN/control"

mkdir -p dist
out=dist/commits-mirror_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zgzip --build "$pkg" "$out" >/dev/null
echo "$out"
