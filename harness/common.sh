# shellcheck shell=bash
# harness/common.sh: the frame every phase script runs in (sourced after
# lib.sh).  It sources one file per concern, each with its own name prefix,
# and gives the settings their defaults:
#   poll.sh              poll_until, free_port, port_busy (shared with the
#                        tests and the VM lab)
#   target-guard.sh      target_guard, guard_dir (also flush.sh, shootout.sh)
#   common/settings.sh   settings_*   the settings, their defaults and checks
#   common/target.sh     target_*     TARGET and TARGET/data
#   common/data.sh       data_*       the dataset
#   common/proc.sh       proc_*       tools and process groups
#   lock.sh              lock_*       the locks of TARGET and the results
#                        directory (also shootout.sh, playbooks/demo.sh)
#   common/strays.sh     strays_*     what a phase killed outright left running
#   common/preflight.sh  preflight_*  the checks before a phase starts work
#   common/serve.sh      serve_*      httpd, the source URL, the addresses
#   common/sampler.sh    sampler_*    the per-second series
#   common/phase.sh      phase_*      the frame: traps, trial, status
#   common/time.sh       time_*       the clock and rates
#   common/replay.sh     replay_*     bin/replay here or over ssh
#   common/proof.sh      proof_*      the tools' CPU, the cold cache
#   common/budget.sh     budget_*     where a phase's wall time went
#   common/precision.sh  precision_*  a figure's trials until it is precise
#   common/turns.sh      turn_*       turns under harness/rounds.sh (inert
#                        without ROUNDS_UP/ROUNDS_DOWN)
#   common/slices.sh     slice_*      a trial in slices under harness/rounds.sh
#   profile.sh           profile_*    the kernel profile of each record name
# lib.sh gives record*, run_id, run_dir, harness_die, harness_say, harness_calc.
#
# A phase script does:
#   . harness/lib.sh; . harness/common.sh
#   phase_begin NAME [RECORD-NAMES...]   (checks, trial number, traps, meta.json)
#   ... proc_run / proc_start / sampler_start ...
#   phase_end                           (records status 0)
# Any failure (a tool's non-zero exit, harness_die MESSAGE, a signal) records
# "NAME TRIAL status 1 exit" and the error line in failures.tsv, stops every
# child (whole process groups), and exits non-zero.

# shellcheck source=SCRIPTDIR/poll.sh
. "$SHOOTOUT_ROOT/harness/poll.sh"
# shellcheck source=SCRIPTDIR/target-guard.sh
. "$SHOOTOUT_ROOT/harness/target-guard.sh"
# shellcheck source=SCRIPTDIR/common/settings.sh
. "$SHOOTOUT_ROOT/harness/common/settings.sh"
# shellcheck source=SCRIPTDIR/common/target.sh
. "$SHOOTOUT_ROOT/harness/common/target.sh"
# shellcheck source=SCRIPTDIR/common/data.sh
. "$SHOOTOUT_ROOT/harness/common/data.sh"
# shellcheck source=SCRIPTDIR/common/proc.sh
. "$SHOOTOUT_ROOT/harness/common/proc.sh"
# shellcheck source=SCRIPTDIR/lock.sh
. "$SHOOTOUT_ROOT/harness/lock.sh"
# shellcheck source=SCRIPTDIR/common/strays.sh
. "$SHOOTOUT_ROOT/harness/common/strays.sh"
# shellcheck source=SCRIPTDIR/common/preflight.sh
. "$SHOOTOUT_ROOT/harness/common/preflight.sh"
# shellcheck source=SCRIPTDIR/blklat.sh
. "$SHOOTOUT_ROOT/harness/blklat.sh"
# shellcheck source=SCRIPTDIR/common/serve.sh
. "$SHOOTOUT_ROOT/harness/common/serve.sh"
# shellcheck source=SCRIPTDIR/common/sampler.sh
. "$SHOOTOUT_ROOT/harness/common/sampler.sh"
# shellcheck source=SCRIPTDIR/common/phase.sh
. "$SHOOTOUT_ROOT/harness/common/phase.sh"
# shellcheck source=SCRIPTDIR/common/time.sh
. "$SHOOTOUT_ROOT/harness/common/time.sh"
# shellcheck source=SCRIPTDIR/common/replay.sh
. "$SHOOTOUT_ROOT/harness/common/replay.sh"
# shellcheck source=SCRIPTDIR/common/proof.sh
. "$SHOOTOUT_ROOT/harness/common/proof.sh"
# shellcheck source=SCRIPTDIR/common/budget.sh
. "$SHOOTOUT_ROOT/harness/common/budget.sh"
# shellcheck source=SCRIPTDIR/common/precision.sh
. "$SHOOTOUT_ROOT/harness/common/precision.sh"
# shellcheck source=SCRIPTDIR/common/turns.sh
. "$SHOOTOUT_ROOT/harness/common/turns.sh"
# shellcheck source=SCRIPTDIR/common/slices.sh
. "$SHOOTOUT_ROOT/harness/common/slices.sh"
# shellcheck source=SCRIPTDIR/profile.sh
. "$SHOOTOUT_ROOT/harness/profile.sh"

settings_defaults
settings_check harness micro
