#!/usr/bin/env bash
# harness/meta.sh OUT : write the run's meta.json (keys: docs/formats.md#metajson) to OUT:
# what is needed to reproduce the run and to label a plot, gathered from this
# host (uname, the system's name and release, the mount table, CPU and memory as the
# adapter harness/os/<os>.sh reads them, the tools' --version, git describe).  Environment: TARGET (required), RUN_ID,
# HOST, VARIANT, DATASET, SEED, FLUSH, FS, MKFS_OPTS (Ansible passes the last
# two; FS defaults to the mounted type), GIT_COMMIT (when not a checkout),
# REPLAY_COUNT, REPLAY_CONC, REPLAY_KEEPALIVE, PRELOAD, SERVE_REUSEPORT (the
# serve settings), BLKLAT and FORKLAT (the latency histograms).
# results_on_target / dataset_on_target: whether RESULTS (the harness's
# records, logs and series) and the dataset directory (DATASETS_OUT) lie on
# TARGET's filesystem or disk (a loop image's backing disk counts), so that
# their writes land on the device under test; results_shares and
# dataset_shares say which ("filesystem", "disk" or "").
# Strings are escaped by jq.  The file is written whole or not at all.
# harness/meta.sh --dataset-info : print only dataset_info (for a run whose
# meta.json was written before its dataset was generated).
set -eu
[ $# -eq 1 ] || { echo "usage: meta.sh OUT | --dataset-info" >&2; exit 2; }
out=$1

# The dataset's own figures (dataset.txt), numbers as numbers.
dataset_info() {
  local dstxt=${DATASETS_OUT:-$SHOOTOUT_ROOT/datasets/out}/$DATASET-$SEED/dataset.txt
  if [ -r "$dstxt" ]; then
    jq -R -s -c 'split("\n") | map(select(length > 0 and (startswith("#") | not)) | split("\t"))
      | map(select(length >= 2) | {(.[0]): (.[1] | (tonumber? // .))}) | add // {}' "$dstxt"
  else
    echo '{}'
  fi
}
if [ "$out" = --dataset-info ]; then
  SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
  dataset_info
  exit 0
fi
SHOOTOUT_ROOT=${SHOOTOUT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=SCRIPTDIR/lib.sh
. "$SHOOTOUT_ROOT/harness/lib.sh"
# shellcheck source=SCRIPTDIR/os.sh
. "$SHOOTOUT_ROOT/harness/os.sh"
: "${TARGET:?TARGET is not set}"
command -v jq >/dev/null || harness_die "jq is missing: run 'make deps'"
HARNESS_BIN=${HARNESS_BIN:-$SHOOTOUT_ROOT/bin}
DATASET=${DATASET:-small}
SEED=${SEED:-1}

# The system's ID, version and name (Linux: /etc/os-release; the BSDs:
# kern.ostype and kern.osrelease).
os_id='' os_ver='' os_pretty=''
IFS=$'\t' read -r os_id os_ver os_pretty < <(os_release 2>/dev/null) || true

m_fstype='' m_opts='' m_source=''
tdir=$(cd "$TARGET" 2>/dev/null && pwd -P) || tdir=$TARGET
IFS=$'\t' read -r _ m_fstype m_opts _ m_source _ < <(os_mount_of "$tdir" 2>/dev/null) || true
device=${m_source:-none}
[ -b "${device%%\[*}" ] || device=none

# VIRT (the VM lab passes tcg or kvm) wins: systemd-detect-virt says "qemu"
# for a TCG guest, which reads as hardware-assisted to most people.
virt=${VIRT:-}
[ -n "$virt" ] || virt=$(os_virt)
[ -n "$virt" ] || virt=none
page_reporting=$(os_page_reporting 2>/dev/null) || page_reporting=none
damon_pageout=$(os_damon_pageout 2>/dev/null) || damon_pageout=none
# shellcheck source=SCRIPTDIR/blklat.sh
. "$SHOOTOUT_ROOT/harness/blklat.sh"
blklat_probe

git_commit=${GIT_COMMIT:-}
[ -n "$git_commit" ] || git_commit=$(git -C "$SHOOTOUT_ROOT" describe --always --dirty --tags 2>/dev/null || echo unknown)

tools='{}'
for t in mkdataset dltar httpd replay rmtree; do
  [ -x "$HARNESS_BIN/$t" ] || continue
  v=$("$HARNESS_BIN/$t" --version 2>/dev/null | head -n 1) || v=unknown
  tools=$(jq -c --arg k "$t" --arg v "${v##* }" '. + {($k): $v}' <<<"$tools")
done

# IOzone itself, where installed (phase-iozone runs it; its records say
# engine iozone or emulated)
if command -v iozone >/dev/null 2>&1; then
  v=$(iozone -v 2>/dev/null | awk '/Revision:/ { print $3; exit }')
  tools=$(jq -c --arg v "${v:-unknown}" '. + {iozone: $v}' <<<"$tools")
fi

ds_info=$(dataset_info)

# shares DIR : "filesystem" when DIR is on TARGET's filesystem, "disk" when
# on another filesystem of the same physical disk, else nothing.
mount_point() {
  os_mount_of "$(cd "$1" 2>/dev/null && pwd -P)" 2>/dev/null | awk -F '\t' '{ print $1 }'
}
physical_disk() {
  local d
  d=$(os_disk_of "$1" 2>/dev/null)
  [ -n "$d" ] && [ "$d" != none ] || return 0
  os_physical_disk "$d" 2>/dev/null
}
shares() {
  local a d=$1
  # a directory not made yet will be made in its nearest existing parent
  while [ ! -d "$d" ] && [ "$d" != "${d%/*}" ]; do d=${d%/*}; done
  [ -n "$d" ] && [ -d "$d" ] || return 0
  a=$(mount_point "$d")
  if [ -n "$a" ] && [ "$a" = "$(mount_point "$tdir")" ]; then
    echo filesystem
    return 0
  fi
  a=$(physical_disk "$d")
  if [ -n "$a" ] && [ "$a" = "$(physical_disk "$tdir")" ]; then echo disk; fi
}
results_shares=$(shares "$(run_dir)")
dataset_shares=$(shares "${DATASETS_OUT:-$SHOOTOUT_ROOT/datasets/out}")

# The CPUs the local replay client and the server were bound to
# (CLIENT_CPUS, serve_cpus; empty: not bound), as the serve phases bind them.
# shellcheck source=SCRIPTDIR/common/serve.sh
. "$SHOOTOUT_ROOT/harness/common/serve.sh"
settings_refuse() { return 1; }
bound=$(serve_cpus && printf '%s\t%s' "$CLIENT_CPU_LIST" "$SERVER_CPU_LIST") || bound=$'\t'
IFS=$'\t' read -r client_cpus server_cpus <<<"$bound" || true

IFS=$'\t' read -r cpus cpu < <(os_cpuinfo) || true
[ -n "$cpu" ] || cpu=$(uname -p)
mem_kb=$(os_memory | awk '{ print $1 }')
tmp=$out.tmp.$$
jq -n \
  --arg run_id "$(run_id)" --arg host "$HOST" --arg variant "$VARIANT" \
  --arg os "$os_id" --arg os_version "$os_ver" --arg os_name "$os_pretty" \
  --arg kernel "$(uname -r)" --arg kernel_version "$(uname -v)" --arg arch "$(uname -m)" --arg cpu "$cpu" \
  --argjson cpus "${cpus:-0}" --argjson mem_kb "${mem_kb:-0}" \
  --arg fs "${FS:-${m_fstype:-unknown}}" --arg mkfs_opts "${MKFS_OPTS:-}" \
  --arg mount_opts "${m_opts:-}" --arg device "$device" --arg target "$TARGET" \
  --arg dataset "$DATASET" --arg seed "$SEED" --arg flush "${FLUSH:-drop}" \
  --argjson tools "$tools" --argjson dataset_info "$ds_info" --arg git_commit "$git_commit" \
  --arg start_time "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg virt "$virt" \
  --arg page_reporting "${page_reporting:-none}" \
  --arg damon_pageout "${damon_pageout:-none}" \
  --arg replay_count "${REPLAY_COUNT:-10000}" --arg replay_conc "${REPLAY_CONC:-100}" \
  --arg replay_keepalive "${REPLAY_KEEPALIVE:-10}" --arg preload "${PRELOAD:-}" \
  --arg serve_socket "$([ "${SERVE_REUSEPORT:-0}" = 1 ] && echo reuseport || echo shared)" \
  --arg client_cpus "${client_cpus:-}" --arg server_cpus "${server_cpus:-}" \
  --arg results_shares "$results_shares" --arg dataset_shares "$dataset_shares" \
  --arg blklat "$BLKLAT_TOOL" --arg blklat_absent "$BLKLAT_WHY" \
  --arg forklat "$([ "${FORKLAT:-0}" = 1 ] && echo on || echo off)" --arg precision "${PRECISION:-2}" \
  '{run_id: $run_id, host: $host, os: $os, os_version: $os_version, os_name: $os_name,
    kernel: $kernel, kernel_version: $kernel_version, arch: $arch, cpu: $cpu, cpus: $cpus, mem_kb: $mem_kb, fs: $fs,
    mkfs_opts: $mkfs_opts, mount_opts: $mount_opts, device: $device, target: $target,
    dataset: $dataset, seed: ($seed | tonumber? // $seed), dataset_info: $dataset_info, flush: $flush,
    tools: $tools, git_commit: $git_commit, start_time: $start_time, variant: $variant,
    virt: $virt, page_reporting: $page_reporting, damon_pageout: $damon_pageout, replay_count: ($replay_count | tonumber? // $replay_count), replay_conc: $replay_conc,
    replay_keepalive: ($replay_keepalive | tonumber? // $replay_keepalive), preload: $preload,
    serve_socket: $serve_socket, client_cpus: $client_cpus, server_cpus: $server_cpus,
    results_on_target: ($results_shares != ""), results_shares: $results_shares,
    dataset_on_target: ($dataset_shares != ""), dataset_shares: $dataset_shares,
    blklat: (if $blklat == "" then "off" else $blklat end), blklat_absent: $blklat_absent,
    forklat: $forklat, precision: ($precision | tonumber? // $precision)}' >"$tmp"
mv -f "$tmp" "$out"
