# shellcheck shell=bash
# playbooks/lab/play.sh: sourced by lab.sh.  The shootout playbook against
# the lab's guests that are up (LAB_STATE/guests.tsv): one run of it, or
# TRIALS rounds of a trial each, so that the machine's drift falls on every
# guest and variant alike (docs/lab.md).  Uses lab.sh's inventory, bg,
# lab_say, lab_die, RUN_ID, SEED, TRIALS, LAB_*.

# The guests the rounds left out after a failure, "name (round K: why)",
# comma-separated (play_rounds; lab.sh names them among the failed guests).
rounds_failed=''

# ansible_run INVENTORY [ARG...] : the playbook against INVENTORY, with the
# run id and LAB_ANSIBLE_ARGS; its log appended to LAB_STATE/ansible.log
# (watch_panics reads the task of a panic there).
ansible_run() {
  local inv=$1
  shift
  lab_say "ansible-playbook -i $inv $LAB_PLAYBOOK (run $RUN_ID${*:+, $*})"
  # Pipelining: one ssh round trip per task (each costs seconds under TCG);
  # profile_tasks (when ansible.posix is installed) shows where time goes.
  # shellcheck disable=SC2086 # LAB_ANSIBLE_ARGS is a list of arguments
  # The checkout's ansible.cfg: a controller that polls less (the
  # guests' TCG shares this machine's CPUs with it).
  ANSIBLE_CONFIG=${ANSIBLE_CONFIG:-$ROOT/ansible.cfg} \
    ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_RETRY_FILES_ENABLED=False ANSIBLE_PIPELINING=True \
    ANSIBLE_LOG_PATH=$LAB_STATE/ansible.log \
    ANSIBLE_CALLBACKS_ENABLED=${ANSIBLE_CALLBACKS_ENABLED:-ansible.posix.profile_tasks} \
    bg ansible-playbook -i "$inv" -e "shootout_run_id=$RUN_ID" "$@" ${LAB_ANSIBLE_ARGS:-} "$LAB_PLAYBOOK"
}

# server_guests : the server guests of LAB_STATE/guests.tsv that are up, one
# a line, in its order.
server_guests() {
  awk -F '\t' '$5 == "up" && $6 != "client" { print $1 }' "$LAB_STATE/guests.tsv"
}

# round_order ROUND NAME... : the names in the order of round ROUND:
# Python's random.shuffle seeded with "SEED-ROUND", as the playbook shuffles
# a host's variants (playbooks/tasks/order.yml), so SEED gives the same
# order again.
round_order() {
  python3 -c 'import random, sys; names = sys.argv[2:]; random.Random(sys.argv[1]).shuffle(names); print("\n".join(names))' \
    "$SEED-$1" "${@:2}"
}

# play : the playbook against the guests that are up.  With TRIALS 1, or a
# single server guest with a single variant, one run of it, which runs
# every trial.  Otherwise in rounds (play_rounds), so that the host's drift
# during the run falls on every guest and variant alike instead of ranking
# them by when they ran (an A/B of two kernels is two guests).
play() {
  local nv
  nv=$(tr ',' '\n' <<<"$LAB_VARIANTS" | grep -c .) || true
  if [ "$TRIALS" -gt 1 ] && [ $(($(server_guests | wc -l) * nv)) -gt 1 ]; then
    play_rounds
    return
  fi
  ansible_run "$LAB_INVENTORY"
}

# play_rounds : TRIALS rounds; round K runs trial K of every server guest,
# the guests in an order shuffled with SEED and K (round_order), each guest
# in a run of the playbook of its own (an inventory of it and the client,
# shootout_round=K, shootout_order_seed=SEED: one trial of each of its
# variants, in an order the playbook shuffles and appends to the guest's
# order.tsv).  The guests stay up from round to round (only the flushes
# reboot them); each trial's records go into the guest's results of the run
# as the next trial (the harness's next_trial).  The order of every round
# is written first to results/RUN/order.tsv (docs/formats.md#ordertsv),
# never over another.  A variant that failed is left out of the later
# rounds, a guest that failed as a whole too (rounds_failed names it).
# results/RUN/summary.tsv then sums the rounds' summaries.
play_rounds() {
  local k g pos rc=0 crc rows call=0 sums=$LAB_STATE/summaries dir=$ROOT/results/$RUN_ID inv why
  local -a guests round
  local -A left
  mapfile -t guests < <(server_guests)
  for g in "${guests[@]}"; do left[$g]=$LAB_VARIANTS; done
  mkdir -p "$sums" "$dir"
  [ ! -e "$dir/order.tsv" ] || lab_die "$dir/order.tsv exists: a run is never written over (name another LAB_RUN_ID)"
  (
    set -C
    exec >"$dir/order.tsv"
    printf 'trial\tposition\thost\tseed\n'
    for k in $(seq 1 "$TRIALS"); do
      round_order "$k" "${guests[@]}" | awk -v k="$k" -v s="$SEED" '{ printf "%s\t%d\t%s\t%s\n", k, NR, $0, s }'
    done
  ) || lab_die "cannot write $dir/order.tsv"
  [ "$(($(wc -l <"$dir/order.tsv") - 1))" -eq $((TRIALS * ${#guests[@]})) ] ||
    lab_die "cannot shuffle the guests into $dir/order.tsv (the reason is above)"
  lab_say "$TRIALS rounds, each a trial of every guest and variant, in the order of $dir/order.tsv (SEED=$SEED)"
  for k in $(seq 1 "$TRIALS"); do
    pos=0
    mapfile -t round < <(awk -F '\t' -v k="$k" 'NR > 1 && $1 == k { print $3 }' "$dir/order.tsv")
    for g in "${round[@]}"; do
      pos=$((pos + 1))
      if [ -z "${left[$g]}" ]; then
        lab_say "round $k of $TRIALS, $pos of ${#guests[@]}: $g is left out (it failed in an earlier round)"
        continue
      fi
      lab_say "round $k of $TRIALS, $pos of ${#guests[@]}: $g (${left[$g]})"
      inv=$LAB_STATE/inventory-$g.yml
      LAB_VARIANTS=${left[$g]} inventory "$LAB_STATE/guests.tsv" - "$inv" "$g"
      crc=0
      ansible_run "$inv" -e "shootout_round=$k" -e "shootout_order_seed=$SEED" || crc=$?
      [ "$crc" -eq 0 ] || rc=$crc
      call=$((call + 1))
      rows=$sums/$(printf '%04d' "$call").tsv
      if [ -s "$dir/summary.tsv" ]; then
        mv -f "$dir/summary.tsv" "$rows"
      else
        printf 'host\tvariant\tphases_done\tfailed\n%s\t*\t0/0 \tround %s: the playbook ended (exit %s) without a summary\n' \
          "$g" "$k" "$crc" >"$rows"
      fi
      # what failed leaves the later rounds
      why=$(awk -F '\t' -v g="$g" '$1 == g && $2 == "*" && $4 != "-" { print $4; exit }' "$rows")
      if [ -n "$why" ]; then
        left[$g]=
        rounds_failed="$rounds_failed${rounds_failed:+, }$g (round $k: $why)"
        continue
      fi
      left[$g]=$(awk -F '\t' -v g="$g" -v vs="${left[$g]}" 'NR > 1 && $1 == g && $4 != "-" { bad[$2] = 1 }
        END { n = split(vs, v, ","); for (i = 1; i <= n; i++) if (!(v[i] in bad)) out = out (out == "" ? "" : ",") v[i]; print out }' "$rows")
    done
  done
  summary_sum "$sums"/*.tsv >"$dir/summary.tsv"
  return "$rc"
}

# summary_sum SUMMARY.TSV... : one summary of the rounds' (summary.tsv of
# the collect role): per host and variant, in the order they first came,
# the phases done and to do summed over the rounds, the phases named once,
# the first failure.
summary_sum() {
  awk -F '\t' -v OFS='\t' 'FNR == 1 { next }
    {
      key = $1 OFS $2
      if (!(key in done)) { keys[++nk] = key; done[key] = 0; total[key] = 0; names[key] = ""; failed[key] = "-" }
      split($3, f, " "); split(f[1], c, "/")
      done[key] += c[1]; total[key] += c[2]
      np = split(f[2], p, ",")
      for (i = 1; i <= np; i++) if (!((key, p[i]) in seen)) { seen[key, p[i]] = 1; names[key] = names[key] (names[key] == "" ? "" : ",") p[i] }
      if (failed[key] == "-" && $4 != "-") failed[key] = $4
    }
    END {
      print "host", "variant", "phases_done", "failed"
      for (i = 1; i <= nk; i++) { k = keys[i]; print k, done[k] "/" total[k] " " names[k], failed[k] }
    }' "$@"
}
