#!/usr/bin/env bash
# Lethe's one version (issue 25): the workspace version in Cargo.toml ([workspace.package] version) is the only place
# it is set. Every crate takes it (version.workspace = true), and with it the CLI (`lethe --version`), every report's
# `lethe_version`, the wasm module's version() and the Python extension's VERSION (lethe.__version__). A few files
# outside Cargo's reach hold a copy, which this script writes and checks:
#   python/Cargo.toml       the wheel's version (maturin reads it: pyproject.toml has dynamic = ["version"]); the
#                           crate is outside the workspace, so it cannot inherit the number
#   www/src/version.js      <lethe-eval>'s `version` before its wasm loads
#   schema/report.schema.json  the report schema's $id (urn:lethe:report-schema:VERSION)
#   any tracked package.json with a "version" field (the npm package of the element)
# and CHANGELOG.md must have a `## [VERSION]` section.
#
#   tools/version.sh            print the version (what a package stamps: `npm version "$(tools/version.sh)"`)
#   tools/version.sh --check    exit 1, saying which file differs, unless every copy is the version
#   tools/version.sh --set X    write X into Cargo.toml and every copy (then add CHANGELOG.md's section; the next
#                               cargo build updates Cargo.lock)
# cli/tests/report_schema.rs runs --check and compares the copies with the version the crates were built with.
set -euo pipefail
cd "$(dirname "$0")/.."

version() {
  awk '/^\[workspace\.package\]/ { p = 1; next } /^\[/ { p = 0 }
       p && /^version[ \t]*=/ { sub(/^[^"]*"/, ""); sub(/".*$/, ""); print; exit }' Cargo.toml
}

# The version each copy holds, one `FILE<TAB>VERSION` line per copy.
copies() {
  printf 'python/Cargo.toml\t%s\n' \
    "$(awk '/^\[package\]/ { p = 1; next } /^\[/ { p = 0 }
            p && /^version[ \t]*=/ { sub(/^[^"]*"/, ""); sub(/".*$/, ""); print; exit }' python/Cargo.toml)"
  printf 'www/src/version.js\t%s\n' "$(sed -n "s/^export const VERSION = '\([^']*\)';$/\1/p" www/src/version.js)"
  printf 'schema/report.schema.json\t%s\n' \
    "$(sed -n 's/^ *"\$id": "urn:lethe:report-schema:\([^"]*\)",$/\1/p' schema/report.schema.json)"
  local f
  while IFS= read -r f; do
    # The first "version" key at the top level of the file (two-space indent, as npm writes it).
    local v
    v=$(sed -n 's/^  "version": "\([^"]*\)",\{0,1\}$/\1/p' "$f" | head -n 1)
    [ -n "$v" ] && printf '%s\t%s\n' "$f" "$v"
  done < <(git ls-files -- 'package.json' '*/package.json' 2>/dev/null | grep -v node_modules || true)
}

case "${1:-}" in
  "")
    version
    ;;
  --check)
    want=$(version)
    [ -n "$want" ] || { echo "tools/version.sh: Cargo.toml has no [workspace.package] version" >&2; exit 1; }
    bad=0
    while IFS=$'\t' read -r file got; do
      if [ "$got" != "$want" ]; then
        echo "tools/version.sh: $file holds version '${got}', Cargo.toml's [workspace.package] has $want:" \
          "run tools/version.sh --set $want" >&2
        bad=1
      fi
    done < <(copies)
    if ! grep -q "^## \[$(printf '%s' "$want" | sed 's/\./\\./g')\]" CHANGELOG.md; then
      echo "tools/version.sh: CHANGELOG.md has no '## [$want]' section: add one saying what changed" >&2
      bad=1
    fi
    exit "$bad"
    ;;
  --set)
    new=${2:-}
    if ! printf '%s' "$new" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'; then
      echo "tools/version.sh: --set takes a version such as 0.2.0 (MAJOR.MINOR.PATCH[-PRE])" >&2
      exit 2
    fi
    awk -v v="$new" '/^\[workspace\.package\]/ { p = 1 } /^\[/ && !/^\[workspace\.package\]/ { p = 0 }
         p && /^version[ \t]*=/ { $0 = "version = \"" v "\"" } { print }' Cargo.toml > Cargo.toml.tmp &&
      mv Cargo.toml.tmp Cargo.toml
    awk -v v="$new" '/^\[package\]/ { p = 1 } /^\[/ && !/^\[package\]/ { p = 0 }
         p && /^version[ \t]*=/ { $0 = "version = \"" v "\"" } { print }' python/Cargo.toml > python/Cargo.toml.tmp &&
      mv python/Cargo.toml.tmp python/Cargo.toml
    sed -i "s/^export const VERSION = '[^']*';$/export const VERSION = '$new';/" www/src/version.js
    sed -i "s/^\( *\"\$id\": \"urn:lethe:report-schema:\)[^\"]*\",$/\1$new\",/" schema/report.schema.json
    while IFS=$'\t' read -r file _; do
      case "$file" in
        python/Cargo.toml | www/src/version.js | schema/report.schema.json) ;;
        *) sed -i "0,/^  \"version\": \"[^\"]*\"/s//  \"version\": \"$new\"/" "$file" ;;
      esac
    done < <(copies)
    echo "version $new written; add CHANGELOG.md's '## [$new]' section, then tools/version.sh --check" >&2
    ;;
  *)
    echo "usage: tools/version.sh [--check | --set VERSION]" >&2
    exit 2
    ;;
esac
