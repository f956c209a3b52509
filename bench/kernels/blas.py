# Native BLAS reference for the kernel benchmark: median seconds of numpy float32 matmul
# (OpenBLAS via numpy) for each [m, n, k] given as JSON on stdin; prints JSON on stdout.
import json, sys, time
import numpy as np

cases = json.load(sys.stdin)
out = {}
for key, (m, n, k) in cases.items():
    a = np.random.rand(m, k).astype(np.float32)
    b = np.random.rand(k, n).astype(np.float32)
    a @ b
    flops = 2.0 * m * n * k
    reps = max(3, min(50, int(0.5 / max(flops / 50e9, 1e-6))))
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); a @ b; ts.append(time.perf_counter() - t)
    ts.sort()
    out[key] = ts[len(ts) // 2]
info = np.__version__
try:
    cfg = np.show_config(mode='dicts')
    blas = cfg.get('Build Dependencies', {}).get('blas', {})
    info += ' / ' + str(blas.get('name', '?')) + ' ' + str(blas.get('version', ''))
except Exception:
    pass
print(json.dumps({'numpy': info, 'seconds': out}))
