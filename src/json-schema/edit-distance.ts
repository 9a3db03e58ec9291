/** Optimal string alignment distance: Levenshtein plus adjacent transpositions (`maxLenght` → 1 from `maxLength`). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const distance: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: columns }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < columns; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      distance[i][j] = Math.min(distance[i - 1][j] + 1, distance[i][j - 1] + 1, distance[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance[i][j] = Math.min(distance[i][j], distance[i - 2][j - 2] + 1);
      }
    }
  }
  return distance[rows - 1][columns - 1];
}

/** The closest candidate within `maxDistance`, ties broken alphabetically so results are stable. */
export function closestMatch(word: string, candidates: readonly string[], maxDistance = 2): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance > maxDistance || (distance > 1 && word.length < 4)) continue;
    if (!best || distance < best.distance || (distance === best.distance && candidate < best.candidate)) {
      best = { candidate, distance };
    }
  }
  return best?.candidate;
}
