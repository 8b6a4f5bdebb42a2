# dist(A, B): the edit distance between two words (insert, delete, replace
# one letter, or swap two neighbours: CONUT is 1 from COUNT), for "did you
# mean" (settings_unknown in settings.sh; make's mistyped targets,
# mk/nearest.awk).
# bag(A, B): the letters of one word that the other lacks (the larger of the
# two counts): never more than dist(A, B), and far cheaper, so a pair with
# bag over the distance wanted needs no dist (settings_unknown: 0.3 s of
# every harness script's start went to dist over the environment).
function bag(a, b,   i, n, k, extra, lack) {
  for (i = 1; i <= length(a); i++) n[substr(a, i, 1)]++
  for (i = 1; i <= length(b); i++) if (n[k = substr(b, i, 1)]-- <= 0) extra++
  for (k in n) if (n[k] > 0) lack += n[k]
  return (extra > lack ? extra : lack) + 0
}

function dist(a, b,   la, lb, i, j, c, m) {
  la = length(a); lb = length(b)
  for (i = 0; i <= la; i++) m[i, 0] = i
  for (j = 0; j <= lb; j++) m[0, j] = j
  for (i = 1; i <= la; i++)
    for (j = 1; j <= lb; j++) {
      c = m[i - 1, j - 1] + (substr(a, i, 1) != substr(b, j, 1))
      if (m[i - 1, j] + 1 < c) c = m[i - 1, j] + 1
      if (m[i, j - 1] + 1 < c) c = m[i, j - 1] + 1
      if (i > 1 && j > 1 && substr(a, i, 1) == substr(b, j - 1, 1) &&
        substr(a, i - 1, 1) == substr(b, j, 1) && m[i - 2, j - 2] + 1 < c) c = m[i - 2, j - 2] + 1
      m[i, j] = c
    }
  return m[la, lb]
}
