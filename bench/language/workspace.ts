/** The generated benchmark workspace: ~5,000 lines of models and workloads (deterministic). */
const targetLines = 5000;

/** Deterministic pseudo-random numbers (LCG), so every run measures the same positions. */
export function random(seed: number): () => number {
    let s = seed >>> 0;
    return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** One generated file: residual blocks, CNNs, MLPs and a workload mixing them with zoo models (names unique per `f`). */
export function generateFile(f: number): string {
    const groups: string[] = [];
    const tenants: string[] = [];
    for (let k = 0; k < 4; k++) {
        const id = `${f}_${k}`;
        groups.push(`/// Residual block ${id}.
model block_${id}(c) {
  input x: f32[n, c, h, w]
  y = relu(batch_norm(conv2d(x, c, kernel: 3, padding: 1, bias: false)))
  y = batch_norm(conv2d(y, c, kernel: 3, padding: 1, bias: false))
  output relu(add(x, y))
}

/// A small CNN ${id}.
model net_${id}(batch = 2, res = 32) {
  input image: f32[batch, 3, res, res]
  x = relu(conv2d(image, 16, kernel: 3, stride: 2, padding: 1))
  x = repeat 2 block_${id}(x, c: 16)
  x = max_pool2d(x, kernel: 2)
  h = flatten(global_avg_pool(x))
  h = relu(dense(h, 64))
  output logits = dense(h, 10)
}

/// A residual MLP ${id}.
model mlp_${id}(batch = 8, width = 128) {
  input x: f32[batch, width]
  h = gelu(layer_norm(dense(x, width * 2)))
  h = dense(h, width)
  output add(x, h)
}
`);
        tenants.push(`  tenant cnn_${k} {\n    model net_${id}(batch: ${1 + k})\n    arrival poisson(rate: ${10 + k}/s)\n    slo p99 <= ${50 + 10 * k}ms\n  }`);
        tenants.push(`  tenant mlp_${k} { model mlp_${id}() arrival closed(clients: 1) }`);
    }
    tenants.push('  tenant zoo_cnn { model resnet18(res: 32) slo p95 <= 200ms }');
    tenants.push('  tenant zoo_nlp { model bert_base(seq: 16, layers: 2) }');
    return `${groups.join('\n')}
workload mix_${f} {
  device auto
${tenants.join('\n')}
  schedule layer_block(size: 4)
  benchmark { duration 2s warmup 0.5s seed ${f} }
}
`;
}

/** The files of the workspace. */
export function generateWorkspace(): string[] {
    const files: string[] = [];
    let lines = 0;
    while (lines < targetLines) {
        const text = generateFile(files.length);
        files.push(text);
        lines += text.split('\n').length - 1;
    }
    return files;
}


export const files = generateWorkspace();
