/** Schedules on the command line read as a workload's schedule line is: words, arguments, defaults, messages. */
import { describe, expect, it } from 'vitest';
import { parseSchedules, splitScheduleList } from '../../src/cli/schedule-option.js';

describe('--schedules', () => {
    it('splits at top-level commas only', () => {
        expect(splitScheduleList('concurrent, regulated(split: 4, sync: none),layer_block')).toEqual(['concurrent', 'regulated(split: 4, sync: none)', 'layer_block']);
        expect(splitScheduleList(' , ')).toEqual([]);
    });

    it('reads each as a schedule line, with the language\'s defaults', () => {
        expect(parseSchedules(['sequential', 'layer_block', 'layer_block(size: 4)', 'regulated(split: 2, sync: none)', 'auto'])).toEqual([
            { policy: 'sequential' }, { policy: 'layer_block', size: 'auto' }, { policy: 'layer_block', size: 4 },
            { policy: 'regulated', split: 2, sync: 'none' }, { policy: 'auto' },
        ]);
    });

    it('says what is wrong with a schedule in the checker\'s words', () => {
        expect(() => parseSchedules(['layer_blocks'])).toThrow("schedule 'layer_blocks': unknown schedule 'layer_blocks'; expected sequential, concurrent, layer_block, regulated, co_tuned, auto");
        expect(() => parseSchedules(['layer_block(size: 0)'])).toThrow(/^schedule 'layer_block\(size: 0\)': .*size/);
        expect(() => parseSchedules(['layer_block(size: 4'])).toThrow(/^'layer_block\(size: 4' is not a schedule \(.+\); write it as in a schedule line, e\.g\. layer_block\(size: 4\)$/);
        expect(() => parseSchedules(['concurrent } workload x {'])).toThrow(/is not a schedule/);
    });
});
