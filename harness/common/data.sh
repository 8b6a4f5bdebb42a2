# shellcheck shell=bash disable=SC2034
# harness/common/data.sh: the dataset: made with bin/mkdataset when missing,
# its totals and figures.

# data_ensure : DS=datasets/out/<DATASET>-<SEED>, made with bin/mkdataset
# if it is not there yet (into a temporary directory, renamed when complete;
# removed again when the phase fails before that).  DATASET is a single name
# and SEED a number (settings_check), so DS is a folder of DATASETS_OUT.
data_ensure() {
  DS=$DATASETS_OUT/$DATASET-$SEED
  MANIFEST=$DS/manifest.tsv
  REQUESTS=$DS/requests.txt
  [ -s "$MANIFEST" ] && [ -s "$DS/layout.tar.gz" ] && return 0
  local profile=$SHOOTOUT_ROOT/datasets/$DATASET.profile tmp
  if [ ! -f "$profile" ]; then
    local names='' p
    for p in "$SHOOTOUT_ROOT"/datasets/*.profile; do
      [ -f "$p" ] || continue
      p=${p##*/} names="$names${p%.profile} "
    done
    phase_refuse "unknown DATASET=$DATASET: use one of $names(datasets/*.profile)"
  fi
  proc_need mkdataset
  mkdir -p "$DATASETS_OUT" || harness_die "cannot create $DATASETS_OUT"
  tmp=$DATASETS_OUT/.$DATASET-$SEED.tmp.$$
  DATA_TMP=$tmp
  PHASE_CLEANUP+=" data_cleanup"
  harness_say "generating dataset $DATASET seed $SEED into $DS"
  proc_run mkdataset "$HARNESS_BIN/mkdataset" -p "$profile" -s "$SEED" -o "$tmp"
  # A rename, unless another run made DS meanwhile (then plain mv would move
  # tmp into it: that copy is removed again).
  if [ -e "$DS" ] || ! mv "$tmp" "$DS" 2>/dev/null; then
    rm -rf "$tmp"
    [ -s "$MANIFEST" ] || harness_die "cannot move the new dataset to $DS"
  fi
  rm -rf "${DS:?}/${tmp##*/}"
  DATA_TMP=''
  # meta.json was written at phase_begin, before the dataset existed: give
  # it the dataset's figures now (only that key, only when it is empty).
  local meta=${RUN_DIR:-}/meta.json info
  if [ -n "${RUN_DIR:-}" ] && [ -s "$meta" ] && [ "$(jq -c .dataset_info "$meta")" = '{}' ]; then
    if ! info=$(DATASET=$DATASET SEED=$SEED DATASETS_OUT=$DATASETS_OUT "$HARNESS/meta.sh" --dataset-info) ||
      ! jq --argjson i "$info" '.dataset_info = $i' "$meta" >"$meta.tmp" || ! mv -f "$meta.tmp" "$meta"; then
      harness_die "cannot add the dataset's figures to $meta"
    fi
  fi
}

# data_totals : sets DS_FILES and DS_BYTES (the final tree) from the manifest.
data_totals() {
  read -r DS_FILES DS_BYTES DS_BLOCKS < <(awk -F '\t' '!/^#/ && NF >= 2 { n++; b += $2; k += int(($2 + 4095) / 4096) }
    END { printf "%.0f %.0f %.0f\n", n, b, k }' "$MANIFEST")
}

# data_value KEY : a value of dataset.txt (empty when absent).
data_value() {
  [ -r "$DS/dataset.txt" ] || return 0
  awk -F '\t' -v k="$1" '$1 == k { print $2; exit }' "$DS/dataset.txt"
}

# data_cleanup : the phase's exit: a dataset left half made is removed.
data_cleanup() {
  [ -z "${DATA_TMP:-}" ] || rm -rf "$DATA_TMP"
}
