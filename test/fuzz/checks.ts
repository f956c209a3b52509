/**
 * Well-formedness of the server's answers, as an editor needs them: ranges inside the document,
 * semantic tokens inside their lines and not overlapping, completion edits that contain the
 * cursor on one line, folding ranges in order, and no `undefined`/`NaN`/`Infinity` in any text
 * a user reads. Each check returns problems as sentences (empty when the answer is fine).
 */

/** Line lengths of a text in UTF-16 code units, split as LSP splits lines (\n, \r\n, \r). */
export function lineLengths(text: string): number[] {
    return text.split(/\r\n|\r|\n/).map(l => l.length);
}

interface Position { line: number; character: number }
interface Range { start: Position; end: Position }

function isPosition(p: unknown): p is Position {
    return typeof p === 'object' && p !== null && Number.isInteger((p as Position).line) && Number.isInteger((p as Position).character);
}

function before(a: Position, b: Position): boolean {
    return a.line < b.line || (a.line === b.line && a.character <= b.character);
}

/** Problems with one range in a document of these line lengths. */
export function rangeProblems(range: unknown, lines: number[], what: string): string[] {
    const r = range as Range;
    if (typeof r !== 'object' || r === null || !isPosition(r.start) || !isPosition(r.end)) return [`${what}: not a range: ${JSON.stringify(range)}`];
    const problems: string[] = [];
    for (const [name, p] of [['start', r.start], ['end', r.end]] as const) {
        if (p.line < 0 || p.line >= lines.length || p.character < 0 || p.character > lines[p.line]!) {
            problems.push(`${what}: ${name} ${p.line}:${p.character} is outside the document (${lines.length} lines${p.line >= 0 && p.line < lines.length ? `, line ${p.line} has ${lines[p.line]} characters` : ''})`);
        }
    }
    if (!before(r.start, r.end)) problems.push(`${what}: start ${r.start.line}:${r.start.character} after end ${r.end.line}:${r.end.character}`);
    return problems;
}

/** Every range in a response that refers to the document (locations of other files are skipped). */
export function allRangeProblems(value: unknown, uri: string, lines: number[], what: string): string[] {
    const problems: string[] = [];
    const visit = (v: unknown, path: string, inOtherFile: boolean) => {
        if (Array.isArray(v)) { v.forEach((x, i) => visit(x, `${path}[${i}]`, inOtherFile)); return; }
        if (typeof v !== 'object' || v === null) return;
        const o = v as Record<string, unknown>;
        const other = inOtherFile || (typeof o.uri === 'string' && o.uri !== uri) || (typeof o.targetUri === 'string' && o.targetUri !== uri)
            || (typeof (o.textDocument as { uri?: unknown } | undefined)?.uri === 'string' && (o.textDocument as { uri: string }).uri !== uri);
        for (const [k, x] of Object.entries(o)) {
            // A workspace edit's `changes` maps URIs to edits: only this document's are checked here.
            if (k === 'changes' && typeof x === 'object' && x !== null) { visit((x as Record<string, unknown>)[uri], `${path}.changes`, other); continue; }
            if (isPosition((x as Range | undefined)?.start) && !other) problems.push(...rangeProblems(x, lines, `${what} ${path}.${k}`));
            else if (k === 'position' && isPosition(x) && !other) problems.push(...rangeProblems({ start: x, end: x }, lines, `${what} ${path}.position`));
            else visit(x, `${path}.${k}`, other);
        }
    };
    visit(value, '', false);
    return problems;
}

/** Semantic tokens (relative encoding): inside their lines, positive lengths, in order, no overlap. */
export function semanticTokenProblems(data: unknown, lines: number[], what: string): string[] {
    if (!Array.isArray(data) || data.length % 5 !== 0 || !data.every(n => Number.isInteger(n) && n >= 0)) return [`${what}: malformed data`];
    const problems: string[] = [];
    let line = 0, character = 0, previousEnd = -1, previousLine = -1;
    for (let i = 0; i < data.length; i += 5) {
        const [dl, dc, length] = [data[i], data[i + 1], data[i + 2]] as number[];
        line += dl;
        character = dl === 0 ? character + dc : dc;
        const at = `${what}: token ${i / 5} at ${line}:${character} (length ${length})`;
        if (length <= 0) problems.push(`${at} is empty`);
        if (line >= lines.length || character + length > lines[line]!) problems.push(`${at} extends past its line`);
        if (line === previousLine && character < previousEnd) problems.push(`${at} overlaps the previous token`);
        previousLine = line;
        previousEnd = character + length;
        if (problems.length > 5) break;
    }
    return problems;
}

/** Completion items: every text edit on one line, containing the cursor, inside the document. */
export function completionProblems(result: unknown, cursor: Position, lines: number[], what: string): string[] {
    const items = Array.isArray(result) ? result : (result as { items?: unknown[] } | null)?.items ?? [];
    const problems: string[] = [];
    for (const item of items as Array<{ label?: unknown; textEdit?: { range?: Range; insert?: Range; replace?: Range } }>) {
        if (typeof item.label !== 'string' || item.label === '') problems.push(`${what}: an item without a label`);
        const edit = item.textEdit;
        if (!edit) continue;
        for (const range of [edit.range, edit.insert, edit.replace]) {
            if (!range) continue;
            const inside = rangeProblems(range, lines, `${what} '${String(item.label)}'`);
            problems.push(...inside);
            if (inside.length > 0) continue;
            if (range.start.line !== range.end.line) problems.push(`${what} '${String(item.label)}': edit spans lines ${range.start.line}–${range.end.line}`);
            if (!before(range.start, cursor) || !before(cursor, range.end)) {
                problems.push(`${what} '${String(item.label)}': edit ${range.start.line}:${range.start.character}–${range.end.line}:${range.end.character} does not contain the cursor ${cursor.line}:${cursor.character}`);
            }
        }
        if (problems.length > 5) break;
    }
    return problems;
}

/** Folding ranges: start ≤ end, inside the document. */
export function foldingProblems(result: unknown, lines: number[], what: string): string[] {
    if (result === null) return [];
    if (!Array.isArray(result)) return [`${what}: not an array`];
    const problems: string[] = [];
    for (const f of result as Array<{ startLine: number; endLine: number; startCharacter?: number; endCharacter?: number }>) {
        if (!(f.startLine >= 0 && f.startLine <= f.endLine && f.endLine < lines.length)) problems.push(`${what}: lines ${f.startLine}–${f.endLine} outside 0–${lines.length - 1}`);
        else {
            if (f.startCharacter !== undefined && f.startCharacter > lines[f.startLine]!) problems.push(`${what}: start character ${f.startCharacter} past line ${f.startLine}`);
            if (f.endCharacter !== undefined && f.endCharacter > lines[f.endLine]!) problems.push(`${what}: end character ${f.endCharacter} past line ${f.endLine}`);
        }
    }
    return problems;
}

/** Document symbols: each selection range inside its range, children inside their parent. */
export function symbolProblems(result: unknown, lines: number[], what: string): string[] {
    if (result === null) return [];
    if (!Array.isArray(result)) return [`${what}: not an array`];
    const problems: string[] = [];
    const visit = (symbols: unknown[], parent: Range | undefined) => {
        for (const s of symbols as Array<{ name?: unknown; range: Range; selectionRange: Range; children?: unknown[] }>) {
            if (typeof s.name !== 'string' || s.name.trim() === '') problems.push(`${what}: a symbol without a name`);
            if (!s.range || !s.selectionRange) continue; // SymbolInformation: its location is checked as a range
            const own = rangeProblems(s.range, lines, `${what} '${String(s.name)}'`);
            problems.push(...own);
            if (own.length > 0) continue;
            if (!before(s.range.start, s.selectionRange.start) || !before(s.selectionRange.end, s.range.end)) problems.push(`${what} '${String(s.name)}': selection range outside its range`);
            if (parent && (!before(parent.start, s.range.start) || !before(s.range.end, parent.end))) problems.push(`${what} '${String(s.name)}': outside its parent`);
            if (s.children) visit(s.children, s.range);
        }
    };
    visit(result, undefined);
    return problems;
}

/** The texts of a response a user reads (messages, hover, labels, titles, details, documentation). */
export function userTexts(value: unknown): string[] {
    const out: string[] = [];
    const keys = new Set(['message', 'value', 'label', 'title', 'detail', 'documentation', 'tooltip', 'newText', 'name', 'contents', 'insertText']);
    const visit = (v: unknown, key: string | undefined) => {
        if (typeof v === 'string') { if (key && keys.has(key)) out.push(v); return; }
        if (Array.isArray(v)) { for (const x of v) visit(x, key); return; }
        if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) visit(x, keys.has(k) ? k : key === 'contents' || key === 'documentation' || key === 'label' || key === 'tooltip' ? key : k);
    };
    visit(value, undefined);
    return out;
}

/** Words that mean a value was missing or not finite when a message was written (unless the document itself uses them). */
export function badWordProblems(value: unknown, documentText: string, what: string): string[] {
    const problems: string[] = [];
    for (const text of userTexts(value)) {
        for (const m of text.matchAll(/\b(undefined|NaN|-?Infinity|null|\[object Object\])\b/g)) {
            if (documentText.includes(m[1]!)) continue;
            problems.push(`${what}: '${m[1]}' in ${JSON.stringify(text.length > 160 ? `${text.slice(Math.max(0, m.index! - 60), m.index! + 60)}…` : text)}`);
            break;
        }
        if (problems.length > 3) break;
    }
    return problems;
}

/** An error object sent as a request's result (`{"code":-32800}`), as two copies of vscode-jsonrpc in one bundle answer a cancelled request. */
export function isErrorAsResult(result: unknown): boolean {
    return typeof result === 'object' && result !== null && !Array.isArray(result) && typeof (result as { code?: unknown }).code === 'number'
        && Object.keys(result).every(k => k === 'code' || k === 'message' || k === 'data');
}
