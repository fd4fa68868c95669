#!/usr/bin/env bash
# A man page (roff) for one of our ArgumentParser tools, from its own --help
# output and the --help of each subcommand: what the generate-manual plugin
# renders too, without building the plugin's tool in CI.
#   .ci/packaging/man-page.sh BINARY [VERSION] > NAME.1
set -euo pipefail
binary=$1
version=${2:-$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' "$(dirname "$0")/../../Sources/MirrorCore/Support/MirrorVersion.swift")}
name=$(basename "$binary")
escape() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"; }
# The OVERVIEW paragraph, which --help wraps over several lines.
abstract=$("$binary" --help | awk 'NR == 1 {sub(/^OVERVIEW: /, "")} /^$/ {exit} {printf "%s%s", sep, $0; sep = " "}')
echo ".TH ${name^^} 1 \"\" \"commits-mirror $version\" \"User Commands\""
echo ".SH NAME"
echo "$name \\- $(escape <<<"$abstract")"
echo ".SH SYNOPSIS"
"$binary" --help | sed -n 's/^USAGE: //p' | escape
echo ".SH DESCRIPTION"
echo ".nf"
"$binary" --help | escape
subcommands=$("$binary" --help | awk '/^SUBCOMMANDS:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {if (seen) exit; seen=1}')
for sub in $subcommands; do
    echo ".fi"
    echo ".SH \"$name $sub\""
    echo ".nf"
    "$binary" "$sub" --help | escape
done
echo ".fi"
echo ".SH SEE ALSO"
echo "README at /usr/share/doc/commits-mirror/README.md, the reference pages in /usr/share/doc/commits-mirror/docs/"
