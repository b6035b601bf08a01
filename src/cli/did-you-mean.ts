// "Did you mean …?" for a name the CLI does not know (a token symbol, a manifest name): the known
// names closest to what was typed, by edit distance, ignoring case. Only a near miss is suggested (a
// letter wrong, missing, extra or two swapped per three typed): a far guess would mislead more than
// the list of known names that the message gives otherwise.

/**
 * The known names nearest to `typed` (ties all returned, in the order given), or none when no name is
 * near enough. Comparison ignores case; the names are returned as given.
 */
export function nearestNames(typed: string, known: readonly string[]): string[] {
  const wanted = typed.trim().toUpperCase();
  if (wanted === "") return [];
  const allowed = Math.max(1, Math.floor(wanted.length / 3));
  let best = allowed + 1;
  let nearest: string[] = [];
  for (const name of new Set(known)) {
    const distance = editDistance(wanted, name.toUpperCase());
    if (distance < best) {
      best = distance;
      nearest = [name];
    } else if (distance === best) {
      nearest.push(name);
    }
  }
  return nearest;
}

/** "; did you mean USDC?" / "; did you mean USDC or USDT?", or "" when nothing is near. */
export function didYouMean(typed: string, known: readonly string[]): string {
  const nearest = nearestNames(typed, known);
  if (nearest.length === 0) return "";
  const shown = nearest.length === 1 ? nearest[0] : `${nearest.slice(0, -1).join(", ")} or ${nearest.at(-1)}`;
  return `; did you mean ${shown}?`;
}

/**
 * Edits (insert, delete, replace, swap two neighbours) turning `a` into `b`: the optimal string
 * alignment distance, so that "USCD" is one edit from "USDC" as a typist would count it.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
