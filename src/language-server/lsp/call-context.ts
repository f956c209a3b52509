/**
 * Finds the call whose argument list contains a position, from the text alone: signature help and
 * argument completion run while the call is still being typed and does not parse yet.
 */
export interface CallContext {
    /** The name before the unmatched `(`: an operator, a model or a workload word (`poisson`). */
    callee: string;
    /** Offset of the callee's first character. */
    calleeOffset: number;
    /** The word before the callee (`arrival`, `schedule`, `device`, `model`, `repeat`, …), if any. */
    preceding?: string;
    /** Zero-based index of the argument the position is in. */
    argIndex: number;
    /** The name of the current argument when it is written `name: …`. */
    argName?: string;
    /** Whether the position is still before the current argument's value (no `:` or value yet). */
    atArgStart: boolean;
    /** Positional arguments before the current one. */
    positionalBefore: number;
    /** Names of the arguments written with `name:` anywhere in the list. */
    givenNames: string[];
}

const ident = /[A-Za-z_][A-Za-z0-9_]*$/;

/** The innermost call around `offset` in `text`, or undefined outside any argument list. */
export function findCallContext(text: string, offset: number): CallContext | undefined {
    const open = unmatchedOpenParen(text, offset);
    if (open === undefined) return undefined;
    const before = stripTrailingSpace(text, open);
    const m = ident.exec(text.slice(Math.max(0, before - 200), before));
    if (!m) return undefined; // a tuple or a parenthesised expression
    const callee = m[0];
    const calleeOffset = before - callee.length;
    const prevEnd = stripTrailingSpace(text, calleeOffset);
    const pm = ident.exec(text.slice(Math.max(0, prevEnd - 200), prevEnd));
    const args = splitTopLevel(text, open + 1, offset);
    const close = findClose(text, open);
    const allArgs = splitTopLevel(text, open + 1, close ?? offset);
    const current = args[args.length - 1] ?? '';
    // The name may stand after the cursor (`gro|ups: 2`): read the whole current argument.
    const named = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:/.exec(allArgs[args.length - 1] ?? current);
    const givenNames = allArgs
        .map(a => /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:/.exec(a)?.[1])
        .filter((n): n is string => n !== undefined);
    return {
        callee,
        calleeOffset,
        preceding: pm?.[0],
        argIndex: args.length - 1,
        argName: named?.[1],
        atArgStart: !/:/.test(current) && /^\s*[A-Za-z_0-9]*$/.test(current),
        positionalBefore: args.slice(0, -1).filter(a => !/^\s*[A-Za-z_][A-Za-z0-9_]*\s*:/.test(a)).length,
        givenNames,
    };
}

function stripTrailingSpace(text: string, end: number): number {
    while (end > 0 && /\s/.test(text[end - 1]!)) end--;
    return end;
}

/** The offset of the `(` that is open at `offset`, skipping strings, comments and nested parens/brackets. */
function unmatchedOpenParen(text: string, offset: number): number | undefined {
    const top = unmatchedOpener(text, offset);
    return top && top.ch === '(' ? top.at : undefined;
}

/** The innermost `(`, `[` or `{` still open at `offset`, skipping strings and comments. */
export function unmatchedOpener(text: string, offset: number): { ch: string; at: number } | undefined {
    const stack: Array<{ ch: string; at: number }> = [];
    for (let i = 0; i < offset; i++) {
        const ch = text[i]!;
        if (ch === '"') { i = skipString(text, i); continue; }
        if (ch === '/' && text[i + 1] === '/') { const nl = text.indexOf('\n', i); if (nl < 0 || nl >= offset) break; i = nl; continue; }
        if (ch === '/' && text[i + 1] === '*') { const e = text.indexOf('*/', i + 2); if (e < 0 || e >= offset) break; i = e + 1; continue; }
        if (ch === '(' || ch === '[' || ch === '{') stack.push({ ch, at: i });
        else if (ch === ')' || ch === ']' || ch === '}') {
            const want = ch === ')' ? '(' : ch === ']' ? '[' : '{';
            // Pop to the matching opener; an unbalanced closer resets what it closes.
            while (stack.length > 0 && stack[stack.length - 1]!.ch !== want) stack.pop();
            stack.pop();
        }
    }
    return stack[stack.length - 1];
}

function skipString(text: string, i: number): number {
    for (let j = i + 1; j < text.length; j++) {
        if (text[j] === '\\') { j++; continue; }
        if (text[j] === '"' || text[j] === '\n') return j;
    }
    return text.length;
}

function findClose(text: string, open: number): number | undefined {
    let depth = 0;
    for (let i = open; i < text.length; i++) {
        const ch = text[i]!;
        if (ch === '"') { i = skipString(text, i); continue; }
        if (ch === '(' || ch === '[') depth++;
        else if (ch === ')' || ch === ']') { depth--; if (depth === 0) return i; }
        else if (ch === '{' || ch === '}') return undefined; // ran out of the statement
    }
    return undefined;
}

/** The comma-separated pieces of `text[from, to)` at nesting depth zero. */
function splitTopLevel(text: string, from: number, to: number): string[] {
    const parts: string[] = [];
    let depth = 0;
    let start = from;
    for (let i = from; i < to; i++) {
        const ch = text[i]!;
        if (ch === '"') { i = Math.min(skipString(text, i), to); continue; }
        if (ch === '(' || ch === '[') depth++;
        else if (ch === ')' || ch === ']') depth--;
        else if (ch === ',' && depth === 0) { parts.push(text.slice(start, i)); start = i + 1; }
    }
    parts.push(text.slice(start, to));
    return parts;
}
