import { LABELLED_MESSAGES } from '@nestclaw/testing';
import { classifyTrivial } from './trivial-message.classifier';

describe('classifyTrivial', () => {
  it('recognises bare greetings and thanks in both languages', () => {
    expect(classifyTrivial('你好')).toEqual({ kind: 'greeting', zh: true });
    expect(classifyTrivial('thanks!')).toEqual({ kind: 'thanks', zh: false });
  });

  it('sends a greeting followed by a request to the model', () => {
    expect(classifyTrivial('你好，帮我查一下明天的天气')).toBeUndefined();
    expect(classifyTrivial('hi, what time is it in Tokyo?')).toBeUndefined();
  });

  it('has no false positive on a real question in the labelled set (precision 1.0)', () => {
    const falsePositives = LABELLED_MESSAGES.filter(([text, label]) => {
      const got = classifyTrivial(text);
      return got !== undefined && got.kind !== label;
    }).map(([text]) => text);
    expect(falsePositives).toEqual([]);
  });

  it('answers most trivial messages of the labelled set without the model (recall ≥ 0.9)', () => {
    const positives = LABELLED_MESSAGES.filter(([, label]) => label !== null);
    const hit = positives.filter(([text, label]) => classifyTrivial(text)?.kind === label);
    expect(hit.length / positives.length).toBeGreaterThanOrEqual(0.9);
  });
});
