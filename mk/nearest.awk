# nearest.awk: the word of standard input (one a line) nearest to the
# variable want, when it is near: at most 2 edits apart (1 for a word of 4
# letters or fewer; an edit inserts, deletes or replaces a letter, or swaps
# two neighbours: tset is 1 from test).  Prints it, or nothing.
#   awk -v want=WORD -f harness/common/dist.awk -f mk/nearest.awk
{
  d = length($0) - length(want)
  if (d > 2 || d < -2) next
  d = dist(want, $0)
  if (d < best || best == "" || (d == best && $0 < near)) { best = d; near = $0 }
}
END {
  if (near != "" && (best <= 1 || (best <= 2 && length(want) > 4))) print near
}
