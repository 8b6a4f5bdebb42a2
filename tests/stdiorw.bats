#!/usr/bin/env bats
# bin/stdiorw: IOzone's stdio tests (fwrite, frewrite, fread, freread) for
# phase-iozone: what it writes, what it prints, and its errors.
load helpers

setup() {
  T=$BATS_TEST_TMPDIR
  TMPFS=''
}

teardown() {
  if [ -n "$TMPFS" ] && mountpoint -q "$TMPFS"; then umount "$TMPFS" || umount -l "$TMPFS"; fi
}

# four_rate_lines CELL_RE: $lines are the four tests' rate lines, in order,
# for the cell CELL_RE matches, each rate a whole number of kB/s.
four_rate_lines() {
  local i=0 t re tab=$'\t'
  [ "${#lines[@]}" -eq 4 ] || { echo "${#lines[@]} lines"; return 1; }
  for t in fwrite frewrite fread freread; do
    re="^$t\\.$1\\.kBps${tab}[1-9][0-9]*${tab}kB/s\$"
    [[ ${lines[$i]} =~ $re ]] || { echo "line $i: ${lines[$i]}"; return 1; }
    i=$((i + 1))
  done
}

@test "stdiorw: -h, --version; usage errors are one line and exit 2" {
  run "$BIN/stdiorw" -h
  [ "$status" -eq 0 ]
  [[ ${lines[0]} == "usage: stdiorw [-e] [-n CELL] [-t N] -s SIZE -r RECSIZE FILE TEST..." ]]
  run "$BIN/stdiorw" --version
  [ "$status" -eq 0 ]
  [[ $output == "stdiorw "* ]]
  run "$BIN/stdiorw" -s 64k -r 4k "$T/f" sideways
  [ "$status" -eq 2 ]
  [ "$output" = "stdiorw: unknown test sideways (want fwrite frewrite fread freread)" ]
  run "$BIN/stdiorw" -s 4k -r 64k "$T/f" fwrite
  [ "$status" -eq 2 ]
  [ "$output" = "stdiorw: -r is larger than -s: not one whole record" ]
  run "$BIN/stdiorw" -s lots -r 4k "$T/f" fwrite
  [ "$status" -eq 2 ]
  [ "$output" = "stdiorw: -s: want a size like 64k, 1m, 4g" ]
  run "$BIN/stdiorw" -s 64k -r 4k "$T/f"
  [ "$status" -eq 2 ]
  [ "$output" = "stdiorw: want FILE TEST... (stdiorw -h lists the options)" ]
  for n in 0 1025 two; do
    run "$BIN/stdiorw" -t "$n" -s 64k -r 4k "$T/f" fwrite
    [ "$status" -eq 2 ]
    [ "$output" = "stdiorw: -t: want a number of children, 1 to 1024" ]
  done
  [ ! -e "$T/f" ]
}

@test "stdiorw: the four tests in order: the file written in place in whole records, one rate line each" {
  echo old >"$T/f"
  # IOzone's fwrite opens the existing file ("r+"): a second name of it sees
  # the new content (a file removed and created again would leave it "old")
  ln "$T/f" "$T/f.link"
  run "$BIN/stdiorw" -s 100k -r 32k "$T/f" fwrite frewrite fread freread
  echo "$output"
  [ "$status" -eq 0 ]
  # the default cell names the sizes asked for; the rate is a whole number of kB/s
  four_rate_lines 'fs100k\.rs32k'
  # 100k in records of 32k: three whole records, the old content replaced
  [ "$(stat -c %s "$T/f")" -eq $((3 * 32768)) ]
  [ "$(head -c 4 "$T/f")" = abcd ]
  [ "$(head -c 4 "$T/f.link")" = abcd ]
  run "$BIN/stdiorw" -e -n cell7 -s 64k -r 4k "$T/f" fwrite fread
  [ "$status" -eq 0 ]
  [[ ${lines[0]} == "fwrite.cell7.kBps	"* ]]
  [[ ${lines[1]} == "fread.cell7.kBps	"* ]]
}

@test "stdiorw: a missing or short file to read is one line and exit 1" {
  run "$BIN/stdiorw" -s 64k -r 4k "$T/none" fread
  [ "$status" -eq 1 ]
  [[ $output == "stdiorw: cannot open $T/none: No such file or directory" ]]
  head -c 10000 /dev/zero >"$T/short"
  run "$BIN/stdiorw" -s 64k -r 4k "$T/short" fread
  [ "$status" -eq 1 ]
  [ "$output" = "stdiorw: $T/short ends after 8192 bytes: shorter than -s (run fwrite first)" ]
  # frewrite writes in place: it never creates the file
  run "$BIN/stdiorw" -s 64k -r 4k "$T/none" frewrite
  [ "$status" -eq 1 ]
  [ ! -e "$T/none" ]
}

@test "stdiorw: a full filesystem is one line and exit 1" {
  require_root
  TMPFS=$T/tmpfs
  mkdir -p "$TMPFS"
  mount -t tmpfs -o size=1m tmpfs "$TMPFS"
  run "$BIN/stdiorw" -s 4m -r 64k "$TMPFS/f" fwrite
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == "stdiorw: cannot "*"$TMPFS/f: No space left on device" ]]
}

@test "stdiorw -t: N children, each on FILE.K, one summed rate line a test" {
  run "$BIN/stdiorw" -t 3 -s 96k -r 32k "$T/f" fwrite frewrite fread freread
  echo "$output"
  [ "$status" -eq 0 ]
  four_rate_lines 't3\.fs96k\.rs32k'
  for k in 0 1 2; do [ "$(stat -c %s "$T/f.$k")" -eq 98304 ]; done
  [ ! -e "$T/f" ]
  [ ! -e "$T/f.3" ]
  run "$BIN/stdiorw" -t 2 -n tput -s 64k -r 4k "$T/f" fread
  [ "$status" -eq 0 ]
  [[ $output == "fread.tput.kBps	"* ]]
  # a child with nothing to read: its one line, exit 1
  rm "$T/f.1"
  run "$BIN/stdiorw" -t 2 -s 64k -r 4k "$T/f" fread
  [ "$status" -eq 1 ]
  [ "$output" = "stdiorw: cannot open $T/f.1: No such file or directory" ]
}

@test "stdiorw -t: a full filesystem is one line, exit 1, and no child left" {
  require_root
  TMPFS=$T/tmpfs
  mkdir -p "$TMPFS"
  mount -t tmpfs -o size=1m tmpfs "$TMPFS"
  run timeout 30 "$BIN/stdiorw" -t 4 -s 512k -r 4k "$TMPFS/f" fwrite fread
  echo "$output"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ $output == "stdiorw: cannot "*"$TMPFS/f."[0-3]": No space left on device" ]]
  # every child has ended: nothing holds the filesystem
  umount "$TMPFS"
}
