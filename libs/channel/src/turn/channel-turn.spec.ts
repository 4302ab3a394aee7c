import { ChatVisibleEvent, TurnEvents } from './channel-turn';

const token = (text: string): ChatVisibleEvent => ({ type: 'token', text });
const label = (e: ChatVisibleEvent) => (e.type === 'token' ? e.text : e.type);

describe('TurnEvents', () => {
  it('hands the reader the events that came before it started reading, in order', async () => {
    const events = new TurnEvents();
    events.push({ type: 'started', sessionId: 's', turnId: 't' });
    events.push(token('a'));
    events.end();
    const seen: string[] = [];
    await events.read((e) => seen.push(label(e)));
    expect(seen).toEqual(['started', 'a']);
  });

  it('hands over each later event as it happens, and resolves when the turn ends', async () => {
    const events = new TurnEvents();
    events.push(token('a'));
    const seen: string[] = [];
    let ended = false;
    const reading = events.read((e) => seen.push(label(e))).then(() => (ended = true));
    events.push(token('b'));
    expect(seen).toEqual(['a', 'b']);
    await Promise.resolve();
    expect(ended).toBe(false);
    events.end();
    await reading;
    expect(ended).toBe(true);
  });

  it('keeps the turn going when the reader throws', async () => {
    const events = new TurnEvents();
    const reading = events.read(() => {
      throw new Error('preview failed');
    });
    expect(() => events.push(token('a'))).not.toThrow();
    events.end();
    await reading;
  });

  it('drops what arrives after the turn ended', async () => {
    const events = new TurnEvents();
    events.end();
    events.push(token('late'));
    const seen: string[] = [];
    await events.read((e) => seen.push(label(e)));
    expect(seen).toEqual([]);
  });
});
