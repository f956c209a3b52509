/**
 * The operators (docs/language.md#operators): names, parameters (order, kind, default), documentation.
 * One table feeds validation (arity, names, kinds), shape inference, completion snippets,
 * signature help and hover — no second list anywhere.
 */

/** What kind of value a parameter takes. */
export type ParamKind =
    | 'tensor'        // a tensor expression
    | 'tensors'       // variadic tensors (concat)
    | 'int'           // an integer or integer dim expression
    | 'int-or-pair'   // INT or (a, b)
    | 'padding'       // INT, (a, b) or "same"
    | 'int-tuple'     // a tuple of integers (reshape shape, transpose perm)
    | 'signed-int'    // an integer that may be negative (axis)
    | 'bool';

export interface OperatorParam {
    name: string;
    kind: ParamKind;
    /** Source text of the default, shown in signatures; absent ⇒ required. */
    default?: string;
    doc: string;
}

export interface OperatorSignature {
    name: string;
    params: OperatorParam[];
    /** The output shape rule, one line (markdown). */
    shapeRule: string;
    doc: string;
    /** Owns implicit weights (filled from the benchmark seed). */
    hasWeights: boolean;
    /** Composite operators lower to several kernels. */
    composite?: boolean;
}

const x = (doc = 'input tensor'): OperatorParam => ({ name: 'x', kind: 'tensor', doc });
const unary = (name: string, doc: string): OperatorSignature => ({
    name, params: [x()], shapeRule: 'same as `x`', doc, hasWeights: false,
});
const pool = (name: string, doc: string): OperatorSignature => ({
    name,
    params: [
        x('`[n, c, h, w]`'),
        { name: 'kernel', kind: 'int-or-pair', doc: 'window size, INT or (kh, kw)' },
        { name: 'stride', kind: 'int-or-pair', default: 'kernel', doc: 'step, INT or (sh, sw)' },
        { name: 'padding', kind: 'padding', default: '0', doc: 'INT, (ph, pw) or "same"; less than the kernel on each side' },
    ],
    shapeRule: '`[n, c, ho, wo]`',
    doc,
    hasWeights: false,
});

export const operators: readonly OperatorSignature[] = [
    {
        name: 'dense',
        params: [x('`[..., k]`'), { name: 'units', kind: 'int', doc: 'output features' },
            { name: 'bias', kind: 'bool', default: 'true', doc: 'add a bias' }],
        shapeRule: '`[..., units]`; weight `[k, units]`',
        doc: 'Fully connected layer.',
        hasWeights: true,
    },
    {
        name: 'matmul',
        params: [{ name: 'a', kind: 'tensor', doc: '`[..., m, k]`' }, { name: 'b', kind: 'tensor', doc: '`[..., k, n]`' }],
        shapeRule: '`[..., m, n]`; leading dims broadcast',
        doc: 'Batched matrix product of two tensors.',
        hasWeights: false,
    },
    {
        name: 'conv2d',
        params: [
            x('`[n, c, h, w]`'),
            { name: 'filters', kind: 'int', doc: 'output channels' },
            { name: 'kernel', kind: 'int-or-pair', doc: 'INT or (kh, kw)' },
            { name: 'stride', kind: 'int-or-pair', default: '1', doc: 'INT or (sh, sw)' },
            { name: 'padding', kind: 'padding', default: '0', doc: 'INT, (ph, pw) or "same"' },
            { name: 'dilation', kind: 'int-or-pair', default: '1', doc: 'INT or (dh, dw)' },
            { name: 'groups', kind: 'int', default: '1', doc: 'c and filters must be divisible by groups' },
            { name: 'bias', kind: 'bool', default: 'true', doc: 'add a bias' },
        ],
        shapeRule: '`[n, filters, ho, wo]`; ho, wo ≥ 1',
        doc: '2-D convolution (NCHW).',
        hasWeights: true,
    },
    {
        name: 'depthwise_conv2d',
        params: [
            x('`[n, c, h, w]`'),
            { name: 'kernel', kind: 'int-or-pair', doc: 'INT or (kh, kw)' },
            { name: 'stride', kind: 'int-or-pair', default: '1', doc: 'INT or (sh, sw)' },
            { name: 'padding', kind: 'padding', default: '0', doc: 'INT, (ph, pw) or "same"' },
            { name: 'multiplier', kind: 'int', default: '1', doc: 'output channels per input channel' },
        ],
        shapeRule: '`[n, c*multiplier, ho, wo]`',
        doc: 'Depthwise 2-D convolution: one filter per input channel.',
        hasWeights: true,
    },
    pool('max_pool2d', '2-D max pooling.'),
    pool('avg_pool2d', '2-D average pooling (padding excluded from the average).'),
    {
        name: 'global_avg_pool', params: [x('`[n, c, h, w]`')], shapeRule: '`[n, c, 1, 1]`',
        doc: 'Average over the spatial dims.', hasWeights: false,
    },
    {
        name: 'batch_norm', params: [x('rank ≥ 2, channel dim 1')], shapeRule: 'same as `x`',
        doc: 'Batch normalisation (inference: folded into the preceding convolution).', hasWeights: true,
    },
    {
        name: 'layer_norm', params: [x()], shapeRule: 'same as `x`',
        doc: 'Layer normalisation over the last dim.', hasWeights: true,
    },
    unary('relu', 'max(x, 0).'),
    unary('relu6', 'min(max(x, 0), 6).'),
    unary('gelu', 'Gaussian error linear unit.'),
    unary('sigmoid', '1 / (1 + e^-x).'),
    unary('tanh', 'Hyperbolic tangent.'),
    unary('silu', 'x · sigmoid(x) (swish).'),
    {
        name: 'add', params: [{ name: 'a', kind: 'tensor', doc: 'tensor' }, { name: 'b', kind: 'tensor', doc: 'tensor' }],
        shapeRule: 'broadcast shape (NumPy rules)', doc: 'Elementwise sum.', hasWeights: false,
    },
    {
        name: 'mul', params: [{ name: 'a', kind: 'tensor', doc: 'tensor' }, { name: 'b', kind: 'tensor', doc: 'tensor' }],
        shapeRule: 'broadcast shape (NumPy rules)', doc: 'Elementwise product.', hasWeights: false,
    },
    {
        name: 'softmax', params: [x(), { name: 'axis', kind: 'signed-int', default: '-1', doc: 'the axis to normalise' }],
        shapeRule: 'same as `x`', doc: 'Softmax along an axis.', hasWeights: false,
    },
    {
        name: 'reshape',
        params: [x(), { name: 'shape', kind: 'int-tuple', doc: 'a tuple, at most one -1' }],
        shapeRule: '`shape`; element counts must match', doc: 'Reshape without copying.', hasWeights: false,
    },
    {
        name: 'transpose',
        params: [x(), { name: 'perm', kind: 'int-tuple', doc: 'a permutation of the rank' }],
        shapeRule: 'permuted', doc: 'Permute the dims.', hasWeights: false,
    },
    {
        name: 'flatten', params: [x('rank ≥ 2')], shapeRule: '`[d0, d1*…*dk]`',
        doc: 'Flatten all but the first dim.', hasWeights: false,
    },
    {
        name: 'concat',
        params: [{ name: 'tensors', kind: 'tensors', doc: 'two or more tensors, equal except on axis' },
            { name: 'axis', kind: 'signed-int', default: '1', doc: 'the axis to join on' }],
        shapeRule: 'summed on axis', doc: 'Concatenate tensors.', hasWeights: false,
    },
    {
        name: 'embedding',
        params: [{ name: 'ids', kind: 'tensor', doc: '`i32[...]`' }, { name: 'vocab', kind: 'int', doc: 'vocabulary size' },
            { name: 'dim', kind: 'int', doc: 'embedding width' }],
        shapeRule: '`[..., dim]`', doc: 'Table lookup of integer ids.', hasWeights: true,
    },
    {
        name: 'attention',
        params: [x('`[b, s, d]`'), { name: 'heads', kind: 'int', doc: 'd must be divisible by heads' },
            { name: 'causal', kind: 'bool', default: 'false', doc: 'mask future positions' }],
        shapeRule: '`[b, s, d]`', doc: 'Multi-head self-attention: QKV projection, scaled dot-product, output projection.',
        hasWeights: true, composite: true,
    },
    {
        name: 'lstm',
        params: [x('`[b, s, i]`'), { name: 'hidden', kind: 'int', doc: 'hidden size' },
            { name: 'layers', kind: 'int', default: '1', doc: 'stacked layers' }],
        shapeRule: '`[b, s, hidden]`', doc: 'LSTM, sequential over s.', hasWeights: true, composite: true,
    },
];

const byName = new Map(operators.map(op => [op.name, op]));

/** The signature of a built-in operator, or undefined if `name` is not one. */
export function findOperator(name: string): OperatorSignature | undefined {
    return byName.get(name);
}

/** `conv2d(x, filters, kernel, stride: 1, …)` — the signature as messages and docs/language.md#operators write it. */
export function formatSignature(op: OperatorSignature): string {
    const params = op.params.map(p => (p.default === undefined ? p.name : `${p.name}: ${p.default}`));
    if (op.name === 'concat') params[0] = 'a, b, …';
    return `${op.name}(${params.join(', ')})`;
}
