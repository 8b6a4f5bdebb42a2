# shellcheck shell=bash disable=SC2034
# harness/common/target.sh: TARGET and the tree the harness owns in it
# (TARGET/data).

# target_check : TARGET passes harness/target-guard.sh (the one guard of
# every entry point: a mount point, or a directory and ALLOW_NONMOUNT=1; never
# / or a system directory).  Sets TARGET (absolute) and DATA=TARGET/data.
target_check() {
  target_guard || harness_die "$TARGET_REFUSAL"
  DATA=$TARGET/data
  export TARGET DATA ALLOW_NONMOUNT
}

# target_owned : TARGET/data carries the harness's mark.
target_owned() {
  [ -f "$DATA/.shootout-owned" ]
}

# target_claim : make TARGET/data (or take an empty one) and mark it ours.
target_claim() {
  if [ -d "$DATA" ] && ! target_owned; then
    [ -z "$(ls -A "$DATA")" ] ||
      harness_die "$DATA exists and is not the harness's (no .shootout-owned mark): move it away or name another TARGET"
  fi
  mkdir -p "$DATA" || harness_die "cannot create $DATA"
  target_owned || printf 'made by the untar-serve shootout harness; phase-delete removes this tree\n' \
    >"$DATA/.shootout-owned" || harness_die "cannot write $DATA/.shootout-owned"
}

# target_empty : TARGET/data holds nothing but our mark and dot-files.
target_empty() {
  [ -z "$(find "$DATA" -mindepth 1 -maxdepth 1 ! -name '.*' -print -quit 2>/dev/null)" ]
}
