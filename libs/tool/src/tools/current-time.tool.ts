import { z } from 'zod';
import { Tool } from '../tool.port';

const input = z.object({
  timezone: z.string().optional().describe('IANA time zone, e.g. "Asia/Shanghai"; default UTC'),
});

/** Harmless built-in: lets the agent loop be exercised end to end without any sandbox. */
export class CurrentTimeTool implements Tool<typeof input> {
  readonly name = 'current_time';
  readonly description = 'Current date and time.';
  readonly input = input;
  readonly sideEffects = () => false;

  async execute(_ctx: unknown, { timezone }: z.output<typeof input>): Promise<string> {
    const tz = timezone || 'UTC';
    const now = new Date();
    try {
      const local = now.toLocaleString('sv-SE', { timeZone: tz, hour12: false });
      return JSON.stringify({ iso: now.toISOString(), timezone: tz, local });
    } catch {
      throw new Error(`unknown time zone "${tz}"`);
    }
  }
}
