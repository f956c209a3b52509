/**
 * Seeded pseudo-random numbers: weights and inputs (compile) and arrival times (execute) are
 * deterministic functions of the benchmark seed. xoshiro128** seeded through splitmix32, so
 * nearby seeds give unrelated streams; `fork(label)` derives an independent stream per purpose
 * (tenant, weight, arrival process) so adding one consumer never shifts another's numbers.
 */

/** A deterministic random stream. */
export interface Random {
    /** Uniform in [0, 1). */
    next(): number;
    /** Standard normal (Box–Muller). */
    normal(): number;
    /** Exponential with the given mean. */
    exponential(mean: number): number;
    /** Integer uniform in [0, n). */
    int(n: number): number;
    /** An independent stream derived from this seed and a label. */
    fork(label: string): Random;
}

function splitmix32(state: number): () => number {
    let s = state >>> 0;
    return () => {
        s = (s + 0x9e3779b9) >>> 0;
        let z = s;
        z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
        z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
        return (z ^ (z >>> 16)) >>> 0;
    };
}

/** FNV-1a hash of a string, to mix labels into seeds. */
export function hashString(text: string): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) {
        h ^= text.charCodeAt(i);
        h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h >>> 0;
}

/** Creates a seeded random stream (xoshiro128**). */
export function createRandom(seed: number, label = ''): Random {
    const mix = splitmix32((Math.trunc(seed) ^ hashString(label)) >>> 0);
    let a = mix(), b = mix(), c = mix(), d = mix();
    if ((a | b | c | d) === 0) a = 1;
    const nextU32 = (): number => {
        const result = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0;
        const t = (b << 9) >>> 0;
        c ^= a; d ^= b; b ^= c; a ^= d;
        c ^= t;
        d = rotl(d, 11);
        return result;
    };
    let spare: number | undefined;
    const random: Random = {
        next: () => nextU32() / 4294967296,
        normal() {
            if (spare !== undefined) { const s = spare; spare = undefined; return s; }
            let u = 0;
            while (u === 0) u = random.next();
            const v = random.next();
            const r = Math.sqrt(-2 * Math.log(u));
            spare = r * Math.sin(2 * Math.PI * v);
            return r * Math.cos(2 * Math.PI * v);
        },
        exponential(mean: number) {
            let u = 0;
            while (u === 0) u = random.next();
            return -Math.log(u) * mean;
        },
        int: (n: number) => Math.floor(random.next() * n),
        fork: (child: string) => createRandom(seed, `${label}/${child}`),
    };
    return random;
}

function rotl(x: number, k: number): number {
    return ((x << k) | (x >>> (32 - k))) >>> 0;
}
