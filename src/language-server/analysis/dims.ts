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

/** An immutable integer polynomial over named symbols. */
export class Dim {
    // Constants (every dim of a concrete instance) keep only their number: no map is built for
    // them unless a symbolic operand needs one — instances of large models stay cheap.
    private termsCache: ReadonlyMap<MonomialKey, number> | undefined;

    private constructor(terms: ReadonlyMap<MonomialKey, number> | undefined, private readonly k: number | undefined) {
        this.termsCache = terms;
    }

    static readonly zero = new Dim(undefined, 0);
    static readonly one = new Dim(undefined, 1);

    /** The constant `n`. */
    static of(n: number): Dim {
        return n === 0 ? Dim.zero : n === 1 ? Dim.one : new Dim(undefined, n);
    }

    /** The symbol `name` (a parameter, a dim variable or an opaque atom's text). */
    static symbol(name: string): Dim {
        return new Dim(new Map([[name, 1]]), undefined);
    }

    private static fromTerms(terms: Map<MonomialKey, number>): Dim {
        for (const key of terms.keys()) if (key !== '') return new Dim(terms, undefined);
        return Dim.of(terms.get('') ?? 0);
    }

    private get terms(): ReadonlyMap<MonomialKey, number> {
        if (!this.termsCache) this.termsCache = this.k === 0 ? new Map() : new Map([['', this.k!]]);
        return this.termsCache;
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
        for (const key of this.terms.keys()) if (key !== '') for (const s of key.split(SEP)) out.add(s);
        return [...out];
    }

    add(other: Dim | number): Dim {
        const o = toDim(other);
        if (this.k !== undefined && o.k !== undefined) return Dim.of(this.k + o.k);
        const terms = new Map(this.terms);
        for (const [k, c] of o.terms) setTerm(terms, k, (terms.get(k) ?? 0) + c);
        return Dim.fromTerms(terms);
    }

    sub(other: Dim | number): Dim {
        const o = toDim(other);
        if (this.k !== undefined && o.k !== undefined) return Dim.of(this.k - o.k);
        return this.add(o.scale(-1));
    }

    scale(k: number): Dim {
        if (this.k !== undefined) return Dim.of(this.k * k);
        if (k === 1) return this; // immutable
        const terms = new Map<MonomialKey, number>();
        for (const [key, c] of this.terms) setTerm(terms, key, c * k);
        return Dim.fromTerms(terms);
    }

    mul(other: Dim | number): Dim {
        const o = toDim(other);
        if (this.k !== undefined && o.k !== undefined) return Dim.of(this.k * o.k);
        // A constant factor only scales the coefficients: no monomial products to form.
        if (o.k !== undefined) return this.scale(o.k);
        if (this.k !== undefined) return o.scale(this.k);
        const terms = new Map<MonomialKey, number>();
        for (const [ka, ca] of this.terms) {
            for (const [kb, cb] of o.terms) {
                const key = multiplyKeys(ka, kb);
                setTerm(terms, key, (terms.get(key) ?? 0) + ca * cb);
            }
        }
        return Dim.fromTerms(terms);
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
            if ([...this.terms.values()].every(c => c % k === 0)) return this.scale(1 / k).roundCoefficients();
            if (this.isConstant) return undefined;
            return Dim.symbol(`(${this.toString()})/${k}`);
        }
        // Divide by a single symbolic term when every term contains it.
        if (o.terms.size === 1) {
            const [[okey, oc]] = [...o.terms];
            const terms = new Map<MonomialKey, number>();
            let ok = true;
            for (const [key, c] of this.terms) {
                const q = divideKey(key, okey);
                if (q === undefined || c % oc !== 0) { ok = false; break; }
                setTerm(terms, q, c / oc);
            }
            if (ok) return Dim.fromTerms(terms);
        }
        if (this.equals(o)) return Dim.one;
        return Dim.symbol(`(${this.toString()})/(${o.toString()})`);
    }

    /** Floor division by a positive integer (window sizes); opaque when symbolic and inexact. */
    floorDiv(k: number): Dim {
        if (this.isConstant) return Dim.of(Math.floor(this.value! / k));
        if ([...this.terms.values()].every(c => c % k === 0)) return this.scale(1 / k).roundCoefficients();
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
        if (diff.terms.size === 0) return 'equal';
        return diff.isConstant ? 'different' : 'unknown';
    }

    /** Substitutes symbols by dims (used when a symbolic result is instantiated). */
    substitute(values: ReadonlyMap<string, Dim>): Dim {
        let result = Dim.zero;
        for (const [key, c] of this.terms) {
            let term = Dim.of(c);
            if (key !== '') for (const s of key.split(SEP)) term = term.mul(values.get(s) ?? Dim.symbol(s));
            result = result.add(term);
        }
        return result;
    }

    /** `2*batch*seq + 3`: highest degree first, then alphabetical, constant last. */
    toString(): string {
        if (this.k !== undefined) return String(this.k);
        if (this.terms.size === 0) return '0';
        const keys = [...this.terms.keys()].sort((a, b) => {
            const da = a === '' ? 0 : a.split(SEP).length;
            const db = b === '' ? 0 : b.split(SEP).length;
            return db - da || (a < b ? -1 : a > b ? 1 : 0);
        });
        let text = '';
        keys.forEach((key, i) => {
            const c = this.terms.get(key)!;
            const magnitude = Math.abs(c);
            const name = key.split(SEP).join('*');
            const body = key === '' ? String(magnitude) : magnitude === 1 ? name : `${magnitude}*${name}`;
            if (i === 0) text = c < 0 ? `-${body}` : body;
            else text += c < 0 ? ` - ${body}` : ` + ${body}`;
        });
        return text;
    }

    private roundCoefficients(): Dim {
        const terms = new Map<MonomialKey, number>();
        for (const [k, c] of this.terms) setTerm(terms, k, Math.round(c));
        return Dim.fromTerms(terms);
    }
}

function toDim(x: Dim | number): Dim {
    return typeof x === 'number' ? Dim.of(x) : x;
}

function setTerm(terms: Map<MonomialKey, number>, key: MonomialKey, c: number): void {
    if (c === 0) terms.delete(key);
    else terms.set(key, c);
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
    const out: number[] = [];
    for (const d of shape) {
        const v = d.value;
        if (v === undefined) return undefined;
        out.push(v);
    }
    return out;
}
