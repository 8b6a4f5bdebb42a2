#!/bin/sh
# playbooks/summarize.sh RUNDIR : a text table of a run's headline figures,
# one line per host and variant (medians over trials), for when the report
# generator (make report) is not there.
set -eu
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: summarize.sh results/RUN-ID" >&2
  exit 2
fi
printf '%-14s %-12s %9s %9s %9s %9s %9s %9s %9s\n' host variant untar_s untar2_s \
  cold1_rps warm1_rps cold32_rps warm32_rps delete_s
for rec in "$1"/*/*/records.tsv; do
  [ -f "$rec" ] || continue
  v=$(dirname "$rec")
  awk -F '\t' -v host="$(basename "$(dirname "$v")")" -v var="$(basename "$v")" '
    function med(k,   n, i, j, t, a) {
      n = split(vals[k], a, " ")
      if (n == 0) return "-"
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    NR > 1 && ($3 == "wall_s" || $3 == "rps") { k = $1 SUBSEP $3; vals[k] = vals[k] " " $4 }
    END {
      printf "%-14s %-12s %9s %9s %9s %9s %9s %9s %9s\n", host, var,
        med("untar" SUBSEP "wall_s"), med("untar2" SUBSEP "wall_s"),
        med("serve-cold-1" SUBSEP "rps"), med("serve-warm-1" SUBSEP "rps"),
        med("serve-cold-32" SUBSEP "rps"), med("serve-warm-32" SUBSEP "rps"),
        med("delete" SUBSEP "wall_s")
    }' "$rec"
done
