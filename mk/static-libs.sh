#!/bin/sh
# Builds the libraries that `make static` links, from Debian's SOURCE
# packages, with dietlibc:
#   mk/static-libs.sh OUT      -> OUT/lib/libowfat.a OUT/lib/libz.a OUT/include/
# The sources are fetched with `apt-get source libowfat zlib` into OUT/src
# (never committed).  When apt knows no deb-src entry, one is added as a
# separate file, /etc/apt/sources.list.d/shootout-deb-src.sources, made from
# the deb entries of the system (needs root), followed by `apt-get update`.
# Does nothing when OUT already holds both libraries.
#   mk/static-libs.sh --fetch OUT
# only fetches the two sources into OUT/src and prints their directories,
# zlib's then libowfat's, one a line (mk/cross-libs.sh uses this).
set -eu

mode=build
if [ "${1:-}" = --fetch ]; then mode=fetch; shift; fi
out=${1:-build/static}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
src=$out/src
srcfile=/etc/apt/sources.list.d/shootout-deb-src.sources

say() { printf 'static-libs: %s\n' "$*" >&2; }
fail() { say "$*"; exit 1; }

if [ "$mode" = build ]; then
  [ -f "$out/lib/libowfat.a" ] && [ -f "$out/lib/libz.a" ] && [ -f "$out/include/io.h" ] && exit 0
  command -v diet >/dev/null 2>&1 || fail "diet not found (install dietlibc-dev: make deps)"
fi
command -v dpkg-source >/dev/null 2>&1 || fail "dpkg-source not found (install dpkg-dev: make deps)"

has_deb_src() {
  grep -qsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list && return 0
  grep -qsiE '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources && return 0
  return 1
}

# A deb-src twin of every deb entry: deb822 stanzas get Types: deb-src,
# one-line entries get deb-src lines (written in deb822 too).
add_deb_src() {
  [ "$(id -u)" -eq 0 ] || fail "no deb-src entry in apt's sources and not root to add one"
  tmp=$srcfile.tmp
  : >"$tmp"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    [ "$f" = "$srcfile" ] && continue
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
         /(^|\n)Types:[^\n]*deb([ \t]|\n|$)/ {
           sub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src"); sub(/^\n/, ""); print }' "$f" >>"$tmp"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" {
           i = 2; opts = ""
           if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
           printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:", $i, $(i + 1)
           for (j = i + 2; j <= NF; j++) printf " %s", $j
           printf "\n\n" }' "$f" >>"$tmp"
  done
  [ -s "$tmp" ] || { rm -f "$tmp"; fail "found no deb entry in apt's sources to derive a deb-src entry from"; }
  mv "$tmp" "$srcfile"
  say "added $srcfile"
}

apt_update() {
  apt-get -o DPkg::Lock::Timeout=300 -qq update >&2 || fail "apt-get update failed (no network?)"
}

mkdir -p "$src"
if ! has_deb_src; then
  add_deb_src
  apt_update
fi

first_dir() { # first_dir GLOB-PREFIX : the first directory matching PREFIX-*/
  for d in "$1"-*/; do
    [ -d "$d" ] && { printf '%s\n' "${d%/}"; return 0; }
  done
  return 1
}

fetch() { # fetch PACKAGE : unpack its source under $src unless already there
  if ! first_dir "$src/$1" >/dev/null; then
    (cd "$src" && apt-get -qq source "$1" >&2) || {
      apt_update
      (cd "$src" && apt-get -qq source "$1" >&2) || fail "apt-get source $1 failed (no network or no deb-src?)"
    }
  fi
  first_dir "$src/$1" || fail "no $1 source directory under $src"
}

mkdir -p "$out/lib" "$out/include"
# zlib: the core files are all a static deflate/inflate user needs.
zdir=$(fetch zlib)
if [ "$mode" = fetch ]; then
  odir=$(fetch libowfat)
  printf '%s\n%s\n' "$zdir" "$odir"
  exit 0
fi
say "building zlib from $zdir"
mkdir -p "$out/obj/zlib"
for c in adler32 crc32 deflate inflate inffast inftrees infback trees zutil compress uncompr; do
  diet gcc -O2 -c -o "$out/obj/zlib/$c.o" "$zdir/$c.c"
done
rm -f "$out/lib/libz.a"
ar rcs "$out/lib/libz.a" "$out"/obj/zlib/*.o
cp "$zdir/zlib.h" "$zdir/zconf.h" "$out/include/"

# libowfat: its own GNUmakefile knows how to build with diet.
odir=$(fetch libowfat)
say "building libowfat from $odir"
(cd "$odir" && make -f GNUmakefile -j2 DIET="diet -Os" CC=gcc libowfat.a >&2) ||
  fail "building libowfat with diet failed"
cp "$odir/libowfat.a" "$out/lib/libowfat.a"
for h in "$odir"/*.h; do
  cp "$h" "$out/include/"
done
say "done: $out/lib/libowfat.a $out/lib/libz.a"
