/** "did you mean …?" for unknown names: the closest candidates by edit distance. */

/** Edit distance counting insertions, deletions, substitutions and adjacent transpositions (`rleu` → `relu` is 1). */
export function editDistance(a: string, b: string): number {
    const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
    for (let i = 1; i <= a.length; i++) {
        for (let j = 1; j <= b.length; j++) {
            const cost = a[i - 1] === b[j - 1] ? 0 : 1;
            d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[a.length][b.length];
}

/** Up to three candidates close to `name` (distance ≤ max(1, length/3)), closest first. */
export function closest(name: string, candidates: Iterable<string>): string[] {
    const limit = Math.max(1, Math.floor(name.length / 3));
    return [...new Set(candidates)]
        .map(c => ({ c, d: editDistance(name.toLowerCase(), c.toLowerCase()) }))
        .filter(x => x.d <= limit && x.c !== name)
        .sort((x, y) => x.d - y.d || (x.c < y.c ? -1 : 1))
        .slice(0, 3)
        .map(x => x.c);
}

/** " Did you mean 'relu'?" or "". */
export function didYouMean(name: string, candidates: Iterable<string>): string {
    const found = closest(name, candidates);
    if (found.length === 0) return '';
    return ` Did you mean ${found.map(c => `'${c}'`).join(' or ')}?`;
}
