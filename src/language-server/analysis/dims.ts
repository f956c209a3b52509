/**
 * Symbolic dims: integer polynomials over parameter and dim-variable names. One representation
 * serves both analyses: a model analysed on its own keeps its parameters symbolic (hover shows
 * `f32[batch, 512]`), a tenant's instantiation makes every dim a constant polynomial. FLOP and
 * byte counts use the same type, so `2*batch*784*512` is exact before any value is known.
 * Operations the polynomial ring cannot express exactly (a floor division of a symbolic dim, a
 * division that is not exact term by term) produce an opaque atom named by its text, which
 * compares equal only to the same text.
 */

/** A monomial key: symbol names sorted and joined by SEP; '' is the constant term. */
type MonomialKey = string;

// Opaque atoms' texts contain `*`, so keys use a separator no name can contain.
const SEP = '\u0001';

/** Shared constant dims 2…4095 (Dim.of), made on first use. */
const smallConstants: (Dim | undefined)[] = new Array(4096);

/** An immutable integer polynomial over named symbols. */
export class Dim {
    // A constant (every dim of a concrete instance) keeps only its number `k`. A symbolic dim keeps
    // its terms as two parallel arrays sorted by monomial key (the constant term, key '', first),
    // no zero coefficients: small arrays, not a Map per dim (a model's symbolic analysis makes
    // thousands of these).
    private constructor(
        private readonly keys: readonly MonomialKey[] | undefined,
        private readonly coefs: readonly number[] | undefined,
        private readonly k: number | undefined,
    ) {}

    static readonly zero = new Dim(undefined, undefined, 0);
    static readonly one = new Dim(undefined, undefined, 1);

    /** The constant `n` (small non-negative integers, most dims of a concrete instance, are shared: dims are immutable). */
    static of(n: number): Dim {
        if (n === 0) return Dim.zero;
        if (n === 1) return Dim.one;
        if (n > 1 && n < smallConstants.length && Number.isInteger(n)) return (smallConstants[n] ??= new Dim(undefined, undefined, n));
        return new Dim(undefined, undefined, n);
    }

    /** The symbol `name` (a parameter, a dim variable or an opaque atom's text). */
    static symbol(name: string): Dim {
        return new Dim([name], [1], undefined);
    }

    /** A dim from sorted keys without zero coefficients: a constant when only the constant term is left. */
    private static fromSorted(keys: MonomialKey[], coefs: number[]): Dim {
        if (keys.length === 0) return Dim.zero;
        if (keys.length === 1 && keys[0] === '') return Dim.of(coefs[0]);
        return new Dim(keys, coefs, undefined);
    }

    /** A dim from unsorted terms that may repeat a key or be zero. */
    private static fromTerms(keys: MonomialKey[], coefs: number[]): Dim {
        const order = keys.map((_, i) => i).sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
        const outKeys: MonomialKey[] = [];
        const outCoefs: number[] = [];
        for (const i of order) {
            const last = outKeys.length - 1;
            if (last >= 0 && outKeys[last] === keys[i]) outCoefs[last] += coefs[i];
            else { outKeys.push(keys[i]); outCoefs.push(coefs[i]); }
        }
        return Dim.fromSorted(...dropZeros(outKeys, outCoefs));
    }

    /** The terms (constants too): sorted keys and their coefficients. */
    private termKeys(): readonly MonomialKey[] {
        return this.keys ?? (this.k === 0 ? [] : ['']);
    }

    private termCoefs(): readonly number[] {
        return this.coefs ?? (this.k === 0 ? [] : [this.k!]);
    }

    /** True when the dim has no symbols. */
    get isConstant(): boolean {
        return this.k !== undefined;
    }

    /** The value of a constant dim, or undefined if symbolic. */
    get value(): number | undefined {
        return this.k;
    }

    /** The symbols this dim mentions (opaque atoms count as one symbol each). */
    get symbols(): string[] {
        const out = new Set<string>();
        for (const key of this.termKeys()) if (key !== '') for (const s of key.split(SEP)) out.add(s);
        return [...out];
    }

    add(other: Dim | number): Dim {
        const o = toDim(other);
        if (this.k !== undefined && o.k !== undefined) return Dim.of(this.k + o.k);
        // A constant added to a symbolic dim changes only its constant term (keys are shared: immutable).
        if (o.k !== undefined) return this.plusConstant(o.k);
        if (this.k !== undefined) return o.plusConstant(this.k);
        // Merge of two sorted term lists.
        const ak = this.termKeys(), ac = this.termCoefs(), bk = o.termKeys(), bc = o.termCoefs();
        const keys: MonomialKey[] = [];
        const coefs: number[] = [];
        let i = 0, j = 0;
        while (i < ak.length || j < bk.length) {
            if (j >= bk.length || (i < ak.length && ak[i] < bk[j])) { keys.push(ak[i]); coefs.push(ac[i]); i++; }
            else if (i >= ak.length || bk[j] < ak[i]) { keys.push(bk[j]); coefs.push(bc[j]); j++; }
            else {
                const c = ac[i] + bc[j];
                if (c !== 0) { keys.push(ak[i]); coefs.push(c); }
                i++;
                j++;
            }
        }
        return Dim.fromSorted(keys, coefs);
    }

    /** A symbolic dim plus a constant: the constant term (key '', sorted first) changes, the other terms stay. */
    private plusConstant(c: number): Dim {
        if (c === 0) return this;
        const keys = this.keys!, coefs = this.coefs!;
        if (keys[0] !== '') return new Dim(['', ...keys], [c, ...coefs], undefined);
        const constant = coefs[0] + c;
        if (constant === 0) return Dim.fromSorted(keys.slice(1), coefs.slice(1));
        const out = coefs.slice();
        out[0] = constant;
        return new Dim(keys, out, undefined);
    }

    sub(other: Dim | number): Dim {
        const o = toDim(other);
        if (this.k !== undefined && o.k !== undefined) return Dim.of(this.k - o.k);
        return this.add(o.scale(-1));
    }

    scale(k: number): Dim {
        if (this.k !== undefined) return Dim.of(this.k * k);
        if (k === 1) return this; // immutable
        if (k === 0) return Dim.zero;
        return Dim.fromSorted(...dropZeros([...this.keys!], this.coefs!.map(c => c * k)));
    }

    mul(other: Dim | number): Dim {
        const o = toDim(other);
        if (this.k !== undefined && o.k !== undefined) return Dim.of(this.k * o.k);
        // A constant factor only scales the coefficients: no monomial products to form.
        if (o.k !== undefined) return this.scale(o.k);
        if (this.k !== undefined) return o.scale(this.k);
        const keys: MonomialKey[] = [];
        const coefs: number[] = [];
        const ak = this.keys!, ac = this.coefs!, bk = o.keys!, bc = o.coefs!;
        for (let i = 0; i < ak.length; i++) {
            for (let j = 0; j < bk.length; j++) {
                keys.push(multiplyKeys(ak[i], bk[j]));
                coefs.push(ac[i] * bc[j]);
            }
        }
        return Dim.fromTerms(keys, coefs);
    }

    /**
     * Exact division. Returns the quotient, `undefined` when the division is provably inexact
     * (constants that do not divide, or division by zero), or an opaque atom when the quotient
     * cannot be expressed exactly but may be an integer for some values.
     */
    divExact(other: Dim | number): Dim | undefined {
        const o = toDim(other);
        if (this.k !== undefined && o.k !== undefined) return o.k !== 0 && this.k % o.k === 0 ? Dim.of(this.k / o.k) : undefined;
        if (o.isConstant) {
            const k = o.value!;
            if (k === 0) return undefined;
            if (this.termCoefs().every(c => c % k === 0)) return this.scale(1 / k).roundCoefficients();
            if (this.isConstant) return undefined;
            return Dim.symbol(`(${this.toString()})/${k}`);
        }
        // Divide by a single symbolic term when every term contains it.
        const ok = o.termKeys(), oc = o.termCoefs();
        if (ok.length === 1) {
            const keys: MonomialKey[] = [];
            const coefs: number[] = [];
            let exact = true;
            const tk = this.termKeys(), tc = this.termCoefs();
            for (let i = 0; i < tk.length; i++) {
                const q = divideKey(tk[i], ok[0]);
                if (q === undefined || tc[i] % oc[0] !== 0) { exact = false; break; }
                keys.push(q);
                coefs.push(tc[i] / oc[0]);
            }
            if (exact) return Dim.fromTerms(keys, coefs);
        }
        if (this.equals(o)) return Dim.one;
        return Dim.symbol(`(${this.toString()})/(${o.toString()})`);
    }

    /** Floor division by a positive integer (window sizes); opaque when symbolic and inexact. */
    floorDiv(k: number): Dim {
        if (this.isConstant) return Dim.of(Math.floor(this.value! / k));
        if (this.coefs!.every(c => c % k === 0)) return this.scale(1 / k).roundCoefficients();
        return Dim.symbol(`⌊(${this.toString()})/${k}⌋`);
    }

    equals(other: Dim | number): boolean {
        const o = toDim(other);
        if (this.k !== undefined && o.k !== undefined) return this.k === o.k;
        return this.toString() === o.toString();
    }

    /**
     * 'equal' when identical, 'different' when provably unequal for every value of the symbols
     * (the difference is a non-zero constant), 'unknown' otherwise.
     */
    compare(other: Dim | number): 'equal' | 'different' | 'unknown' {
        const o = toDim(other);
        if (this.k !== undefined && o.k !== undefined) return this.k === o.k ? 'equal' : 'different';
        const diff = this.sub(toDim(other));
        if (diff.k === 0) return 'equal';
        return diff.isConstant ? 'different' : 'unknown';
    }

    /** Substitutes symbols by dims (used when a symbolic result is instantiated). */
    substitute(values: ReadonlyMap<string, Dim>): Dim {
        let result = Dim.zero;
        const tk = this.termKeys(), tc = this.termCoefs();
        for (let i = 0; i < tk.length; i++) {
            let term = Dim.of(tc[i]);
            if (tk[i] !== '') for (const s of tk[i].split(SEP)) term = term.mul(values.get(s) ?? Dim.symbol(s));
            result = result.add(term);
        }
        return result;
    }

    /**
     * The dim with every symbol renamed by `rename` (an opaque atom is one symbol: its whole text
     * is passed). A block analysed once in canonical symbols is read back in a caller's this way.
     */
    renameSymbols(rename: (name: string) => string): Dim {
        if (this.k !== undefined) return this;
        const keys = this.keys!.map(key => (key === '' ? '' : key.split(SEP).map(rename).sort().join(SEP)));
        return Dim.fromTerms(keys, [...this.coefs!]);
    }

    /** `2*batch*seq + 3`: highest degree first, then alphabetical, constant last; a coefficient past the doubles' range is `∞`. */
    toString(): string {
        if (this.k !== undefined) return numberText(this.k);
        const tk = this.keys!, tc = this.coefs!;
        const order = tk.map((_, i) => i).sort((a, b) => {
            const ka = tk[a], kb = tk[b];
            const da = ka === '' ? 0 : ka.split(SEP).length;
            const db = kb === '' ? 0 : kb.split(SEP).length;
            return db - da || (ka < kb ? -1 : ka > kb ? 1 : 0);
        });
        let text = '';
        order.forEach((index, i) => {
            const key = tk[index];
            const c = tc[index];
            const magnitude = Math.abs(c);
            const name = key.split(SEP).join('*');
            const body = key === '' ? numberText(magnitude) : magnitude === 1 ? name : `${numberText(magnitude)}*${name}`;
            if (i === 0) text = c < 0 ? `-${body}` : body;
            else text += c < 0 ? ` - ${body}` : ` + ${body}`;
        });
        return text;
    }

    private roundCoefficients(): Dim {
        if (this.k !== undefined) return Dim.of(Math.round(this.k));
        return Dim.fromSorted(...dropZeros([...this.keys!], this.coefs!.map(c => Math.round(c))));
    }
}

function toDim(x: Dim | number): Dim {
    return typeof x === 'number' ? Dim.of(x) : x;
}

/** The terms without those whose coefficient is 0 (arrays reused). */
function dropZeros(keys: MonomialKey[], coefs: number[]): [MonomialKey[], number[]] {
    if (!coefs.includes(0)) return [keys, coefs];
    const k: MonomialKey[] = [];
    const c: number[] = [];
    for (let i = 0; i < keys.length; i++) if (coefs[i] !== 0) { k.push(keys[i]); c.push(coefs[i]); }
    return [k, c];
}

// Products of monomial keys recur endlessly (every FLOP count multiplies the same symbols):
// memoised by the two keys (two map levels, so a lookup builds no string).
const products = new Map<MonomialKey, Map<MonomialKey, MonomialKey>>();
let productCount = 0;

function multiplyKeys(a: MonomialKey, b: MonomialKey): MonomialKey {
    if (a === '') return b;
    if (b === '') return a;
    if (b < a) [a, b] = [b, a];
    let byB = products.get(a);
    if (!byB) {
        if (productCount > 100_000) {
            products.clear();
            productCount = 0;
        }
        products.set(a, byB = new Map());
    }
    let key = byB.get(b);
    if (key === undefined) {
        key = [...a.split(SEP), ...b.split(SEP)].sort().join(SEP);
        byB.set(b, key);
        productCount++;
    }
    return key;
}

/** a / b for monomials, or undefined when b's symbols are not all in a. */
function divideKey(a: MonomialKey, b: MonomialKey): MonomialKey | undefined {
    if (b === '') return a;
    const rest = a === '' ? [] : a.split(SEP);
    for (const s of b.split(SEP)) {
        const i = rest.indexOf(s);
        if (i < 0) return undefined;
        rest.splice(i, 1);
    }
    return rest.join(SEP);
}

/** A shape: one dim per axis. */
export type Shape = readonly Dim[];

/** `[batch, 784]`. */
/** A number as written in a dim; one past the doubles' range (a product of huge counts) as `∞`. */
function numberText(x: number): string {
    return Number.isFinite(x) ? String(x) : x > 0 ? '∞' : x < 0 ? '-∞' : '?';
}

export function formatShape(shape: Shape): string {
    return `[${shape.map(d => d.toString()).join(', ')}]`;
}

/** The product of a shape's dims (element count). */
export function elementCount(shape: Shape): Dim {
    // Constant dims multiplied as numbers first: one scaling of the symbolic part, not a polynomial per axis.
    let k = 1;
    let symbolic: Dim | undefined;
    for (const d of shape) {
        const v = d.value;
        if (v !== undefined) k *= v;
        else symbolic = symbolic ? symbolic.mul(d) : d;
    }
    return symbolic ? symbolic.scale(k) : Dim.of(k);
}

/** The shape as numbers, or undefined when any dim is symbolic. */
export function concreteShape(shape: Shape): number[] | undefined {
    // Sized up front: a shape is kept (in the IR), and an array grown by push keeps room for 17.
    const out: number[] = new Array(shape.length);
    for (let i = 0; i < shape.length; i++) {
        const v = shape[i].value;
        if (v === undefined) return undefined;
        out[i] = v;
    }
    return out;
}
