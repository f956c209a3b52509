import { AstUtils } from 'langium';
import { describe, expect, test } from 'vitest';
import { isCall, isDimVar, isInput, isLet, isModel, isNameRef, isTenant, type Call, type NameRef } from '../../src/language-server/generated/ast.js';
import { resolveDimVar } from '../../src/language-server/references/bindings.js';
import { check, errors, model, rangeText, services, shared, summary, withCode } from './helpers.js';

function nameRefs(node: Parameters<typeof AstUtils.streamAst>[0]): NameRef[] {
    return AstUtils.streamAst(node).filter(isNameRef).toArray();
}

function calls(node: Parameters<typeof AstUtils.streamAst>[0]): Call[] {
    return AstUtils.streamAst(node).filter(isCall).toArray();
}

describe('scoping and linking', () => {
    test('rebinding: a reference sees the latest earlier binding, never its own statement', async () => {
        const doc = await check(`model m(batch = 1) {
  input x: f32[batch, 4]
  x = relu(x)
  x = sigmoid(x)
  output y = add(x, x)
}`);
        expect(errors(doc)).toEqual([]);
        const [input, let1, let2, out] = model(doc, 'm').statements;
        const refs = nameRefs(model(doc, 'm')).filter(r => r.ref.$refText === 'x');
        expect(refs.map(r => r.ref.ref)).toEqual([input, let1, let2, let2]);
        expect(isInput(input) && isLet(let1) && isLet(let2)).toBe(true);
        void out;
    });

    test('params, inputs and dim variables share one namespace; a lone dim naming an earlier one aliases it', async () => {
        const doc = await check(`model m(batch = 1) {
  input x: f32[batch, n, h]
  input y: f32[n, n * 2]
  output add(dense(x, h), dense(y, 1))
}`);
        expect(summary(doc).filter(s => !s.startsWith('unused'))).toEqual([]);
        const m = model(doc, 'm');
        const [x, y] = m.statements.filter(isInput);
        const [batchDim, n, h] = x.dims;
        const [n2] = y.dims;
        expect(isDimVar(batchDim) && resolveDimVar(batchDim, m)).toBe(m.params[0]);
        expect(isDimVar(n) && resolveDimVar(n, m)).toBe(n);
        expect(isDimVar(n2) && resolveDimVar(n2, m)).toBe(n);
        const refs = nameRefs(m);
        expect(refs.find(r => r.ref.$refText === 'n')?.ref.ref).toBe(n);
        expect(refs.find(r => r.ref.$refText === 'h')?.ref.ref).toBe(h);
    });

    test('a name bound later is unresolved, with a hint and a did-you-mean', async () => {
        const doc = await check(`model m(batch = 1) {
  input x: f32[batch, 4]
  y = relu(z)
  z = relu(x)
  output add(y, z)
}`);
        const [d] = withCode(doc, 'unresolved-reference');
        expect(rangeText(doc, d)).toBe('z');
        expect(d.message).toContain('bound later');
        expect(d.data).toMatchObject({ code: 'unresolved-reference' });
    });

    test('operator callees are not models: no linking error; unknown callees are unknown-op with a suggestion', async () => {
        const doc = await check(`model m(batch = 1) {
  input x: f32[batch, 4]
  output add(rleu(x), relu(x))
}`);
        const relu = calls(doc.parseResult.value).find(c => c.callee.$refText === 'relu')!;
        expect(relu.callee.ref).toBeUndefined();
        expect(summary(doc).filter(s => !s.startsWith('unused'))).toEqual([
            `unknown-op@rleu: unknown operator or model 'rleu'. Did you mean 'relu'?`,
        ]);
    });

    test('words in workload arguments are not references', async () => {
        const doc = await check(`workload w {
  tenant t { model mlp() }
  schedule regulated(split: auto, sync: none)
}`);
        expect(summary(doc)).toEqual([]);
    });

    test('zoo models are in scope everywhere; a user model shadows a zoo model (hint)', async () => {
        const doc = await check(`model mlp(batch = 2) {
  input x: f32[batch, 8]
  output relu(x)
}
workload w {
  tenant a { model mlp() }
  tenant b { model resnet18(res: 32) }
}`);
        const tenants = AstUtils.streamAst(doc.parseResult.value).filter(isTenant).toArray();
        const [a, b] = tenants.map(t => calls(t)[0].callee.ref);
        expect(a).toBe(model(doc, 'mlp'));
        expect(b && AstUtils.getDocument(b).uri.toString()).toBe('tenancy-zoo:/resnet.tenancy');
        const [hint] = withCode(doc, 'shadowed-zoo-model');
        expect(rangeText(doc, hint)).toBe('mlp');
        expect(hint.severity).toBe(4);
        expect(errors(doc)).toEqual([]);
    });

    test('imports: relative paths resolve, the importing file wins over the import, missing files are unresolved', async () => {
        const lib = await check(`model blk(c) { input x: f32[n, c] output relu(x) }
model shared_name(c) { input x: f32[n, c] output sigmoid(x) }`, 'file:///proj/lib/blocks.tenancy');
        const main = await check(`import "lib/blocks.tenancy"
import "lib/missing.tenancy"
model shared_name(c) { input x: f32[n, c] output tanh(x) }
model top(batch = 1) {
  input x: f32[batch, 4]
  output add(blk(x, c: 4), shared_name(x, c: 4))
}
workload w { tenant t { model top() } }`, 'file:///proj/main.tenancy');
        const [blkCall, sharedCall] = calls(model(main, 'top')).filter(c => c.callee.ref);
        expect(blkCall.callee.ref).toBe(model(lib, 'blk'));
        expect(sharedCall.callee.ref).toBe(model(main, 'shared_name'));
        const [missing] = withCode(main, 'unresolved-reference');
        expect(rangeText(main, missing)).toBe('"lib/missing.tenancy"');
        expect(errors(main).length).toBe(1);
    });

    test('import cycles are errors on the import lines', async () => {
        const a = await check('import "b.tenancy"\nmodel ma(c) { input x: f32[c] output relu(x) }', 'file:///cyc/a.tenancy');
        const b = await check('import "a.tenancy"\nmodel mb(c) { input x: f32[c] output relu(x) }', 'file:///cyc/b.tenancy');
        await shared.workspace.DocumentBuilder.build([a, b], { validation: true });
        for (const doc of [a, b]) {
            const cycle = withCode(doc, 'import-cycle');
            expect(cycle.length).toBe(1);
            expect(cycle[0].range.start.line).toBe(0);
        }
        expect(withCode(a, 'import-cycle')[0].message).toBe('import cycle: a.tenancy → b.tenancy → a.tenancy; remove one of these imports');
        const c = await check('import "a.tenancy"\nmodel mc(c) { input x: f32[c] output relu(x) }', 'file:///cyc/c.tenancy');
        expect(withCode(c, 'import-cycle')).toEqual([]);
    });

    test('models of other workspace files resolve without an import', async () => {
        const other = await check('model far_block(c) { input x: f32[n, c] output relu(x) }', 'file:///ws/other.tenancy');
        const doc = await check('model near(batch = 1) { input x: f32[batch, 2] output far_block(x, c: 2) }', 'file:///ws/near.tenancy');
        expect(calls(doc.parseResult.value)[0].callee.ref).toBe(model(other, 'far_block'));
        expect(AstUtils.streamAst(doc.parseResult.value).filter(isModel).count()).toBe(1);
    });
});

describe('declarations', () => {
    test('a lone input dim naming a parameter or an earlier dim variable declares nothing: its declaration is the original', async () => {
        const doc = await check(`model m(batch = 1) {
  input x: f32[batch, n]
  input y: f32[n, 2]
  output add(x, transpose(y, (1, 0)))
}`);
        const m = model(doc, 'm');
        const [x, y] = m.statements.filter(isInput);
        const references = services.references.References;
        const nameOf = (node: Parameters<typeof services.references.NameProvider.getNameNode>[0]) => services.references.NameProvider.getNameNode(node)!;
        expect(references.findDeclarations(nameOf(x.dims[0]))).toEqual([m.params[0]]);
        expect(references.findDeclarations(nameOf(y.dims[0]))).toEqual([x.dims[1]]);
        expect(references.findDeclarations(nameOf(x.dims[1]))).toEqual([x.dims[1]]);
    });
});
