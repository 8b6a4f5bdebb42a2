# shellcheck shell=bash disable=SC2034
# harness/common/target.sh: TARGET and the tree the harness owns in it
# (TARGET/data).

# target_check : TARGET passes harness/target-guard.sh (the one guard of
# every entry point: a mount point, or a directory and ALLOW_NONMOUNT=1; never
# / or a system directory).  Sets TARGET (absolute) and DATA=TARGET/data.
target_check() {
  target_guard || phase_refuse "$TARGET_REFUSAL"
  DATA=$TARGET/data
  export TARGET DATA ALLOW_NONMOUNT
}

# target_owned : TARGET/data carries the harness's mark.
target_owned() {
  [ -f "$DATA/.shootout-owned" ]
}

# target_claim : make TARGET/data (or take an empty one) and mark it ours,
# afresh: the mark of a new extraction says nothing of an update yet.
target_claim() {
  if [ -d "$DATA" ] && ! target_owned; then
    [ -z "$(ls -A "$DATA")" ] ||
      phase_refuse "$DATA exists and is not the harness's (no .shootout-owned mark): move it away or name another TARGET"
  fi
  mkdir -p "$DATA" || harness_die "cannot create $DATA"
  printf 'made by the untar-serve shootout harness; phase-delete removes this tree\n' \
    >"$DATA/.shootout-owned" || harness_die "cannot write $DATA/.shootout-owned"
}

# The line the mark gets once phase untar2 has extracted the update tarball
# (the request list names files of it).
TARGET_UPDATED='update.tar.gz extracted (phase untar2)'

# target_updated : TARGET/data's mark says the update tarball is extracted.
target_updated() {
  grep -qxF "$TARGET_UPDATED" "$DATA/.shootout-owned" 2>/dev/null
}

# target_mark_updated : note in the mark that the update tarball is extracted.
target_mark_updated() {
  target_updated || printf '%s\n' "$TARGET_UPDATED" >>"$DATA/.shootout-owned" ||
    harness_die "cannot write $DATA/.shootout-owned"
}

# target_empty : TARGET/data holds nothing but our mark and dot-files.
target_empty() {
  [ -z "$(find "$DATA" -mindepth 1 -maxdepth 1 ! -name '.*' -print -quit 2>/dev/null)" ]
}
