import { ChatVisibleEvent, TurnEvents } from './channel-turn';

const token = (text: string): ChatVisibleEvent => ({ type: 'token', text });

async function readAll(events: TurnEvents): Promise<ChatVisibleEvent[]> {
  const seen: ChatVisibleEvent[] = [];
  for await (const e of events) seen.push(e);
  return seen;
}

describe('TurnEvents', () => {
  it('hands delivery the events pushed before it started reading, in order', async () => {
    const events = new TurnEvents();
    events.push({ type: 'started', sessionId: 's', turnId: 't' });
    events.push(token('a'));
    events.end();
    expect((await readAll(events)).map((e) => e.type)).toEqual(['started', 'token']);
  });

  it('hands over events pushed while delivery waits, and ends when the turn does', async () => {
    const events = new TurnEvents();
    const read = readAll(events);
    events.push(token('a'));
    await Promise.resolve();
    events.push(token('b'));
    events.push(token('c'));
    setImmediate(() => events.end());
    expect((await read).map((e) => (e.type === 'token' ? e.text : e.type))).toEqual(['a', 'b', 'c']);
  });

  it('drops what arrives after the turn ended', async () => {
    const events = new TurnEvents();
    events.end();
    events.push(token('late'));
    expect(await readAll(events)).toEqual([]);
  });
});
