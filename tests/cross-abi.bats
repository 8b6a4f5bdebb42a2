#!/usr/bin/env bats
# The BSD binaries of `make cross` against what each base system gives
# them (mk/abi/TARGET.tsv, checked by mk/cross-abi.sh): the ELF
# interpreter, the libraries with their major versions, the ABI note.
# Tests on the binaries themselves skip when `make cross` has not run.

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
CHECK=$ROOT/mk/cross-abi.sh

# The BSD targets of mk/cross.mk, one a line.
bsd_targets() {
  sed -n 's/^CROSS_TARGETS := //p' "$ROOT/mk/cross.mk" | tr ' ' '\n' | grep -E -- '-(free|net|open)bsd'
}

# tsv_field TARGET KEY : the second field of the KEY lines of TARGET's TSV.
tsv_field() {
  awk -F'\t' -v k="$2" '$1 == k { print $2 }' "$ROOT/mk/abi/$1.tsv"
}

# built : the BSD targets whose binaries `make cross` left, one a line.
built() {
  local t
  for t in $(bsd_targets); do
    [ -d "$ROOT/bin/cross/$t" ] && echo "$t"
  done
  return 0
}

# patch FILE OLD NEW : replace the first OLD (NUL-terminated) with NEW of the same length.
patch() {
  python3 - "$@" <<'EOF'
import sys
path, old, new = sys.argv[1], sys.argv[2].encode() + b"\0", sys.argv[3].encode() + b"\0"
assert len(old) == len(new)
data = open(path, "rb").read()
assert old in data, "%s not in %s" % (old, path)
open(path, "wb").write(data.replace(old, new, 1))
EOF
}

@test "cross-abi: every BSD target of make cross has its base system recorded (mk/abi/TARGET.tsv, with interp, needed, note, oldest)" {
  [ -n "$(bsd_targets)" ]
  for t in $(bsd_targets); do
    for k in interp needed note oldest; do
      [ -n "$(tsv_field "$t" "$k")" ] || { echo "mk/abi/$t.tsv has no $k line"; false; }
    done
  done
}

@test "cross-abi: each BSD binary of make cross names its system's interpreter, needs only its base libraries and carries its ABI note" {
  [ -n "$(built)" ] || skip "make cross has not been run (no bin/cross/*bsd*)"
  for t in $(built); do
    run "$CHECK" "$t" "$ROOT/bin/cross/$t"/*
    [ "$status" -eq 0 ] || { echo "$t: $output"; false; }
    [ -z "$output" ]
  done
}

@test "cross-abi: a binary patched to need libc.so.99 (another major), or another interpreter, or asking for a newer release, is refused" {
  [ -n "$(built)" ] || skip "make cross has not been run (no bin/cross/*bsd*)"
  for t in $(built); do
    libc=$(tsv_field "$t" needed | grep '^libc\.so')
    interp=$(tsv_field "$t" interp)
    # The same length: the major's digits become 9s; no major, libc becomes libm.
    case $libc in
      *.so.*) bad_libc=${libc%.so.*}.so.$(printf '%s' "${libc##*.so.}" | tr 0-8 9) ;;
      *) bad_libc=libm.so ;;
    esac
    bad_interp=${interp%?}X
    cp "$ROOT/bin/cross/$t/rmtree" "$BATS_TEST_TMPDIR/lib"
    patch "$BATS_TEST_TMPDIR/lib" "$libc" "$bad_libc"
    run "$CHECK" "$t" "$BATS_TEST_TMPDIR/lib"
    [ "$status" -eq 1 ]
    [[ $output == *"lib: needs $bad_libc, which $t "*"base system does not have"* ]]
    cp "$ROOT/bin/cross/$t/rmtree" "$BATS_TEST_TMPDIR/interp"
    patch "$BATS_TEST_TMPDIR/interp" "$interp" "$bad_interp"
    run "$CHECK" "$t" "$BATS_TEST_TMPDIR/interp"
    [ "$status" -eq 1 ]
    [[ $output == *"interp: interpreter $bad_interp, but $t's is $interp"* ]]
    # The same binary against a base one version older than its note asks for.
    mkdir -p "$BATS_TEST_TMPDIR/abi"
    awk -F'\t' 'BEGIN { OFS = "\t" } $1 == "note" { $5 = $5 - 1 } { print }' "$ROOT/mk/abi/$t.tsv" >"$BATS_TEST_TMPDIR/abi/$t.tsv"
    if [ "$t" != x86_64-openbsd ]; then # OpenBSD's note says 0: nothing older
      CROSS_ABI_DIR=$BATS_TEST_TMPDIR/abi run "$CHECK" "$t" "$ROOT/bin/cross/$t/rmtree"
      [ "$status" -eq 1 ]
      [[ $output == *"rmtree: its "*" note asks for version "*", newer than "* ]]
    fi
  done
}

@test "cross-abi: a Linux binary linked against libz is refused for every BSD (interpreter, libc.so.6, libz.so.1, no note)" {
  command -v cc >/dev/null || skip "no C compiler"
  printf '#include <zlib.h>\nint main(void) { return zlibVersion()[0] == 0; }\n' >"$BATS_TEST_TMPDIR/z.c"
  cc -o "$BATS_TEST_TMPDIR/z" "$BATS_TEST_TMPDIR/z.c" -Wl,--no-as-needed -lz
  for t in $(bsd_targets); do
    run "$CHECK" "$t" "$BATS_TEST_TMPDIR/z"
    [ "$status" -eq 1 ]
    [[ $output == *"z: interpreter "*", but $t's is $(tsv_field "$t" interp)"* ]]
    [[ $output == *"z: needs libz.so.1, which $t $(tsv_field "$t" oldest)'s base system does not have (it has: "* ]]
    [[ $output == *"z: needs libc.so.6"* ]]
    [[ $output == *"z: no "*" note of type 1 in "* ]]
  done
}

@test "cross-abi: a target without a TSV, a missing argument or a file that is not ELF: one line, exit 2 or 1" {
  run "$CHECK" x86_64-plan9 /bin/sh
  [ "$status" -eq 2 ]
  [ "$output" = "cross-abi: no $ROOT/mk/abi/x86_64-plan9.tsv: nothing is known of x86_64-plan9's base system" ]
  run "$CHECK" x86_64-freebsd
  [ "$status" -eq 2 ]
  [ "$output" = "cross-abi: usage: mk/cross-abi.sh TARGET BINARY..." ]
  printf 'not a binary\n' >"$BATS_TEST_TMPDIR/text"
  run "$CHECK" x86_64-freebsd "$BATS_TEST_TMPDIR/text"
  [ "$status" -eq 1 ]
  [ "$output" = "cross-abi: $BATS_TEST_TMPDIR/text: not an ELF file" ]
}

@test "cross-abi: docs/building.md names the oldest release of each BSD target, as its TSV records it" {
  for t in $(bsd_targets); do
    oldest=$(tsv_field "$t" oldest)
    grep -qF "| \`$t\` | $oldest |" "$ROOT/docs/building.md" ||
      { echo "docs/building.md has no row | \`$t\` | $oldest |"; false; }
  done
}

@test "cross-abi: the BSDs' httpd and replay wait with kqueue (mk/cross-libs.sh), NetBSD's through NetBSD 10's __kevent50" {
  [ -n "$(built)" ] || skip "make cross has not run"
  for t in $(built); do
    for b in httpd replay; do
      f=$ROOT/bin/cross/$t/$b
      [ -f "$f" ] || continue
      syms=$(readelf --dyn-syms -W "$f" | awk '$7 == "UND" { sub(/@.*/, "", $8); print $8 }')
      # and --stats can say so (lib/evmech.c built against this libowfat)
      strings "$f" | grep -qx kqueue || { echo "$t/$b: its event_mechanism cannot say kqueue"; false; }
      case $t in
        *-netbsd*)
          # NetBSD 10's kevent with its 40-byte struct kevent: __kevent50;
          # __kevent100 is NetBSD 11's, plain kevent NetBSD 4's (mk/cross-libs.sh)
          grep -qx kqueue <<<"$syms" || { echo "$t/$b does not call kqueue"; false; }
          grep -qx __kevent50 <<<"$syms" || { echo "$t/$b does not call __kevent50"; false; }
          ! grep -qx -e __kevent100 -e kevent <<<"$syms" || { echo "$t/$b calls another kevent than __kevent50"; false; }
          ;;
        *)
          grep -qx kqueue <<<"$syms" || { echo "$t/$b does not call kqueue"; false; }
          grep -qx kevent <<<"$syms" || { echo "$t/$b does not call kevent"; false; }
          ;;
      esac
    done
  done
}
