#!/usr/bin/env bats
# `make static`: fully static binaries against dietlibc, libowfat and zlib
# built from Debian's source packages.  Skipped, with the reason, when the
# sources cannot be fetched (no network, no apt source, not root).
load helpers

@test "make static: statically linked binaries in bin/static that run" {
  require_cmd diet make file readelf
  cd "$ROOT"
  if ! out=$(make static 2>&1); then
    case $out in
      *"apt-get source"*"failed"* | *"apt-get update failed"* | *"not root"* | *"no deb entry"*)
        skip "cannot fetch Debian sources: $(printf '%s\n' "$out" | grep static-libs: | tail -1)" ;;
    esac
    printf '%s\n' "$out" | tail -20
    false
  fi
  n=0
  for b in bin/static/*; do
    [ -x "$b" ] || continue
    n=$((n + 1))
    file "$b" | grep -q 'statically linked'
    [ -z "$(readelf -d "$b" 2>/dev/null | grep NEEDED || true)" ]
    run "$b" --version
    [ "$status" -eq 0 ]
    [[ $output == "$(basename "$b") "[0-9]* ]]
  done
  [ -x bin/static/mkdataset ]
  # the libraries came from source packages, built here, not from the system
  [ -f build/static/lib/libowfat.a ]
  [ -f build/static/lib/libz.a ]
  [ -z "$(git ls-files build/static)" ]
}

@test "make static: the static mkdataset writes the same bytes as the dynamic one" {
  [ -x "$ROOT/bin/static/mkdataset" ] || skip "bin/static/mkdataset not built (make static skipped or failed)"
  t=$BATS_TEST_TMPDIR
  "$ROOT/bin/static/mkdataset" -p tiny -o "$t/s" >/dev/null
  "$BIN/mkdataset" -p tiny -o "$t/d" >/dev/null
  for f in manifest.tsv layout.tar.gz update.tar.gz requests.txt dataset.txt; do cmp "$t/s/$f" "$t/d/$f"; done
}

@test "make static: the static stdiorw runs all four tests (dietlibc's fclose frees a setvbuf buffer)" {
  [ -x "$ROOT/bin/static/stdiorw" ] || skip "bin/static/stdiorw not built (make static skipped or failed)"
  t=$BATS_TEST_TMPDIR
  run "$ROOT/bin/static/stdiorw" -s 1m -r 64k "$t/f" fwrite frewrite fread freread
  echo "$output"
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 4 ]
  [[ ${lines[3]} == "freread.fs1024k.rs64k.kBps	"* ]]
  [ "$(stat -c %s "$t/f")" -eq 1048576 ]
}

@test "make static: the static dltar extracts a gzip tarball and exits 0; --threads 2 is a clear error (dietlibc's threads crash exit)" {
  [ -x "$ROOT/bin/static/dltar" ] || skip "bin/static/dltar not built (make static skipped or failed)"
  t=$BATS_TEST_TMPDIR
  "$BIN/mkdataset" -p tiny -o "$t/ds" >/dev/null
  mkdir "$t/x"
  run "$ROOT/bin/static/dltar" -C "$t/x" "$t/ds/layout.tar.gz"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(find "$t/x" -type f | wc -l)" -eq "$(tar -tzf "$t/ds/layout.tar.gz" | grep -vc '/$')" ]
  run "$ROOT/bin/static/dltar" --threads 2 -C "$t/x" "$t/ds/layout.tar.gz"
  [ "$status" -eq 2 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == *"--threads 2: this static build (dietlibc) has no working threads"* ]]
}

@test "make static: the static stdiorw -t runs its children in step and exits 0" {
  [ -x "$ROOT/bin/static/stdiorw" ] || skip "bin/static/stdiorw not built (make static skipped or failed)"
  t=$BATS_TEST_TMPDIR
  run timeout 60 "$ROOT/bin/static/stdiorw" -t 3 -s 256k -r 4k "$t/f" fwrite frewrite fread freread
  echo "$output"
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -eq 4 ]
  [[ ${lines[3]} == "freread.t3.fs256k.rs4k.kBps	"* ]]
  for k in 0 1 2; do [ "$(stat -c %s "$t/f.$k")" -eq 262144 ]; done
}
