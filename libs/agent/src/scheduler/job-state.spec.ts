import { jobState } from './job-state';

describe('jobState', () => {
  it('tells a paused job (next run kept) from a finished one (no next run)', () => {
    expect(jobState({ enabled: true, nextRunAt: '2026-11-28T00:00:00.000Z' })).toBe('active');
    expect(jobState({ enabled: false, nextRunAt: '2026-11-28T00:00:00.000Z' })).toBe('paused');
    expect(jobState({ enabled: false, nextRunAt: null })).toBe('finished');
  });
});
