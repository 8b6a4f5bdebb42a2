#!/bin/sh
# Builds the libraries that `make cross` links, for one target, with zig's
# C compiler, from Debian's SOURCE packages (never vendored):
#   mk/cross-libs.sh ZIG TARGET OUT
#     -> OUT/lib/libowfat.a OUT/lib/libz.a OUT/include/ and OUT/zcc, the
#        compiler wrapper (`zig cc -target TARGET`) the tools are built with.
# The sources come from `mk/static-libs.sh --fetch` (apt-get source
# zlib libowfat, adding a deb-src entry when apt has none) into
# build/cross/src, shared by all targets; each target builds in its own
# copy under OUT/src.  Does nothing when OUT already holds both libraries.
set -eu

[ $# -eq 3 ] || { echo "usage: mk/cross-libs.sh ZIG TARGET OUT" >&2; exit 2; }
zig=$1 target=$2 out=$3
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
case $zig in /*) ;; *) zig=$(pwd)/$zig ;; esac

say() { printf 'cross-libs: %s: %s\n' "$target" "$*" >&2; }
fail() { say "$*"; exit 1; }

[ -x "$zig" ] || fail "no zig at $zig (run make deps)"
mkdir -p "$out"

# NetBSD's kevent, as NetBSD 10 has it.  zig 0.17.1 carries NetBSD 11's
# headers: their <sys/event.h> gives struct kevent an ext[4] (72 bytes)
# and renames kevent to __kevent100, a symbol of NetBSD 11 (zig's stubs,
# lib/libc/netbsd/abilists, list it for 11.0 and not for 10.1, zig's
# default minimum), so a kqueue build did not link, and must not.  NetBSD
# 10's own header (sys/sys/event.h 1.54, 2022-07-19) has the 40-byte struct
# and renames kevent to __kevent50, which NetBSD 11 keeps for binaries
# built so (sys/compat/sys/event.h: its __kevent50
# takes struct kevent100, that 40-byte layout; the plain kevent symbol is
# the one from before NetBSD 5, with a 32-bit time_t, and is not used).  So
# every NetBSD compile sees zig's header with ext[4] dropped and kevent
# renamed to __kevent50 (OUT/netbsd10/sys/event.h, searched before zig's),
# and a probe checks the size and the symbol that makes.
incl=
case $target in
  *-netbsd*)
    zh=$(dirname "$(readlink -f "$zig")")/lib/libc/include/generic-netbsd/sys/event.h
    [ -f "$zh" ] || fail "no NetBSD <sys/event.h> in zig's tree ($zh)"
    mkdir -p "$out/netbsd10/sys"
    sed -e '/^[[:space:]]*uint64_t[[:space:]]*ext\[4\];/d' -e 's/__RENAME(__kevent100)/__RENAME(__kevent50)/' \
      "$zh" >"$out/netbsd10/sys/event.h"
    if ! grep -q '__RENAME(__kevent50)' "$out/netbsd10/sys/event.h" || grep -q 'ext\[4\]' "$out/netbsd10/sys/event.h"; then
      fail "zig's NetBSD <sys/event.h> ($zh) is not the one mk/cross-libs.sh knows (__kevent100 and ext[4])"
    fi
    incl="-I$out/netbsd10"
    ;;
  *) ;;
esac

# The wrapper every compile for this target goes through.  zig keeps its
# cache next to the build, not in the home directory.
cache=$(dirname "$out")/zig-cache
cat >"$out/zcc.tmp" <<EOF
#!/bin/sh
ZIG_GLOBAL_CACHE_DIR=$cache ZIG_LOCAL_CACHE_DIR=$cache exec "$zig" cc -target $target $incl "\$@"
EOF
chmod +x "$out/zcc.tmp"
mv "$out/zcc.tmp" "$out/zcc"

case $target in
  *-netbsd*)
    printf '%s\n' '#include <sys/types.h>' '#include <sys/event.h>' \
      '_Static_assert(sizeof(struct kevent) == 40, "NetBSD 10 struct kevent");' \
      'int probe(int kq) { struct kevent k; return kevent(kq, 0, 0, &k, 1, 0); }' >"$out/kevent50.c"
    "$out/zcc" -c -o "$out/kevent50.o" "$out/kevent50.c" || fail "NetBSD 10's struct kevent is not 40 bytes here"
    nm "$out/kevent50.o" | grep -q ' U __kevent50$' || fail "kevent does not call __kevent50 here (see $out/kevent50.o)"
    ;;
  *) ;;
esac

# A static musl binary carries no note naming its OS, so `file` would not
# say "Linux": linked into the Linux targets' tools (through LDFLAGS, see
# mk/cross.mk) is the ELF ABI tag glibc's start files carry (OS 0 =
# Linux) with the oldest kernel the tools need: 4.11, for statx.
case $target in
  *-linux-*)
    printf '%s\n' '.section .note.ABI-tag,"a",@note' '.balign 4' \
      '.long 4, 16, 1' '.asciz "GNU"' '.long 0, 4, 11, 0' >"$out/abi-tag.s"
    "$out/zcc" -c -o "$out/abi-tag.o" "$out/abi-tag.s" || fail "assembling the ABI tag failed"
    ;;
  *) ;;
esac

# The BSDs' libowfat must wait with kqueue (an older build of this script
# probed it wrongly, or on NetBSD not at all, and fell back to poll): such a
# build is made again.
kqueue_ok() { # kqueue_ok DIR : DIR/havekqueue.h says kqueue (the BSDs), or need not
  case $target in
    *bsd*) grep -q HAVE_KQUEUE "$1/havekqueue.h" 2>/dev/null ;;
    *) true ;;
  esac
}
[ -f "$out/lib/libowfat.a" ] && [ -f "$out/lib/libz.a" ] && [ -f "$out/include/io.h" ] && kqueue_ok "$out/include" && exit 0

dirs=$(mk/static-libs.sh --fetch "$(dirname "$out")") || fail "fetching the Debian sources failed"
zsrc=$(printf '%s\n' "$dirs" | sed -n 1p)
osrc=$(printf '%s\n' "$dirs" | sed -n 2p)
if [ ! -d "$zsrc" ] || [ ! -d "$osrc" ]; then fail "no source directories from static-libs.sh --fetch"; fi
mkdir -p "$out/lib" "$out/include" "$out/obj/zlib" "$out/src"

say "building zlib from $zsrc"
for c in adler32 crc32 deflate inflate inffast inftrees infback trees zutil compress uncompr; do
  "$out/zcc" -O2 -w -DHAVE_UNISTD_H -c -o "$out/obj/zlib/$c.o" "$zsrc/$c.c" || fail "compiling zlib's $c.c failed"
done
rm -f "$out/lib/libz.a"
ar rcs "$out/lib/libz.a" "$out"/obj/zlib/*.o
cp "$zsrc/zlib.h" "$zsrc/zconf.h" "$out/include/"

# libowfat's GNUmakefile runs every compile as `$(DIET) $(CC) ...` and
# builds its helper `ent` with plain $(CC), which must run here: so CC
# stays the host's gcc and DIET is a wrapper that drops that first word
# and compiles for the target instead.  Its try*.c probes then find what
# the target has (kqueue on the BSDs, epoll on Linux).  Some probes call
# printf or puts without <stdio.h>, which zig's clang refuses as an
# implicit declaration (an error since clang 16): trykqueue.c failed so,
# and the BSDs' libowfat waited with poll.  For the probes alone that is a
# warning again.
odir=$out/src/libowfat
rm -rf "$odir"
cp -R "$osrc" "$odir"
# With kqueue found, libowfat 0.32's iom_* functions (its newer iomux API,
# which the tools do not use) do not compile: iom_init.c lacks <fcntl.h>
# and <unistd.h>, iom_wait.c's kqueue branch passes &kev and uses an
# undeclared i.  On the BSDs they are left out of the library.
case $target in
  *bsd*)
    for f in "$odir"/io/iom_*.c; do
      printf '/* left out of the BSD builds: mk/cross-libs.sh */\ntypedef int iom_left_out;\n' >"$f"
    done
    ;;
  *) ;;
esac
cat >"$out/zdiet" <<EOF
#!/bin/sh
shift
case " \$* " in
  *" try"*.c" "*) set -- -Wno-error=implicit-function-declaration "\$@" ;;
esac
exec "$out/zcc" "\$@"
EOF
chmod +x "$out/zdiet"
say "building libowfat from $osrc"
(cd "$odir" && make -f GNUmakefile -j2 DIET="$out/zdiet" CC=gcc libowfat.a >"$out/libowfat.log" 2>&1) ||
  fail "building libowfat failed (see $out/libowfat.log)"
kqueue_ok "$odir" || fail "libowfat's kqueue probe went wrong for $target (see $odir/havekqueue.h and $out/libowfat.log)"
cp "$odir/libowfat.a" "$out/lib/libowfat.a"
for h in "$odir"/*.h; do
  cp "$h" "$out/include/"
done
say "done: $out/lib/libowfat.a $out/lib/libz.a"
