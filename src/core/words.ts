/** Wording shared by every printed message, so counts read the same everywhere ("1 endpoint", "2 endpoints"). */

/** `1 profile`, `0 profiles`, `2 entries` (pass the plural when it is not `word + s`). */
export function count(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}
