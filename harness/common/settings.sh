# shellcheck shell=bash disable=SC2034
# harness/common/settings.sh: the harness's settings and their defaults.

# settings_defaults : every setting not given in the environment gets its
# default.
settings_defaults() {
  HARNESS=$SHOOTOUT_ROOT/harness
  HARNESS_BIN=${HARNESS_BIN:-$SHOOTOUT_ROOT/bin}
  DATASET=${DATASET:-small}
  SEED=${SEED:-1}
  SOURCE=${SOURCE:-}
  FLUSH=${FLUSH:-drop}
  TRIALS=${TRIALS:-1}
  SERVE_PROCS=${SERVE_PROCS:-1 32}
  REPLAY_CONC=${REPLAY_CONC:-100}
  REPLAY_KEEPALIVE=${REPLAY_KEEPALIVE:-10}
  REPLAY_COUNT=${REPLAY_COUNT:-10000}
  PRELOAD=${PRELOAD:-}
  REPLAY_FROM=${REPLAY_FROM:-}
  ALLOW_NONMOUNT=${ALLOW_NONMOUNT:-0}
  DATASETS_OUT=${DATASETS_OUT:-$SHOOTOUT_ROOT/datasets/out}
  export SHOOTOUT_ROOT RESULTS HOST VARIANT
}
