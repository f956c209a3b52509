/** Which co-run tail the accuracy benchmark scores a run on: the percentiles its requests bound, as `tenancy run` reports them. */
import { describe, expect, it } from 'vitest';
import { boundedP99, P99_REQUESTS, percentileOf, tailPercentile } from '../../bench/accuracy/tails.js';

describe('co-run tails the accuracy benchmark scores', () => {
    it('a p99 needs the 299 requests a run needs to bound it', () => {
        expect(P99_REQUESTS).toBe(299);
        expect(tailPercentile(299)).toBe('p99');
        expect(tailPercentile(5000)).toBe('p99');
    });
    it('fewer requests: the highest of p95 and p90 they bound, else none', () => {
        expect(tailPercentile(298)).toBe('p95');
        expect(tailPercentile(59)).toBe('p95');
        expect(tailPercentile(58)).toBe('p90');
        expect(tailPercentile(29)).toBe('p90');
        // zoo_triple_open's mobilenet: 12 requests at 2.5/s bound its median only.
        expect(tailPercentile(12)).toBeUndefined();
        expect(tailPercentile(0)).toBeUndefined();
    });
    it('reads the percentile a sample names, and keeps the p99s their runs bounded', () => {
        expect(percentileOf('cnn_s co-run p95')).toBe('p95');
        expect(percentileOf('mlp co-run p99')).toBe('p99');
        expect(percentileOf('mlp co-run mean')).toBeUndefined();
        const xs = [{ what: 'a', requests: 12 }, { what: 'b', requests: 300 }, { what: 'c' }];
        expect(boundedP99(xs).map(x => x.what)).toEqual(['b', 'c']);
    });
});
