/** Messages answered from a template without a model call. */
export type TrivialKind = 'greeting' | 'thanks' | 'farewell';

export interface TrivialMatch {
  kind: TrivialKind;
  /** The reply should be in Chinese. */
  zh: boolean;
}

const EN: Record<TrivialKind, RegExp> = {
  greeting:
    /^(?:(?:hi+|hel+o+|hey+|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening|day)|morning|evening)(?: there| all| everyone| guys| folks| friend| nestclaw| bot)?)$/,
  thanks:
    /^(?:(?:ok|okay|great|cool|awesome|perfect|nice|got it|alright|sounds good)[ ,]+)?(?:thanks|thank you|thx|tx|ty|tysm|many thanks|much appreciated|appreciate it|cheers)(?: (?:a lot|so much|very much|again|a bunch|a ton|mate|man|buddy))?$/,
  farewell:
    /^(?:bye+|bye bye|goodbye|good bye|see (?:you|ya)(?: later| soon| tomorrow)?|cya|later|good ?night|gn|nighty night|ttyl|talk (?:to you )?(?:later|soon))$/,
};

const ZH: Record<TrivialKind, RegExp> = {
  greeting: /^(?:你好|您好|嗨|哈[喽啰罗]|早|早上好|早安|上午好|中午好|下午好|晚上好|大家好|在吗|在不在|你好你好)$/,
  thanks:
    /^(?:(?:好的|好|嗯|收到|明白了?|了解)[，, ]*)?(?:谢谢你?|谢谢您|谢了|多谢|感谢|感谢你|感谢您|非常感谢|太感谢了?|万分感谢|辛苦了|谢谢啦|谢啦|麻烦了)$/,
  farewell: /^(?:再见|拜拜|拜|晚安|回头见|明天见|下次见|88|886)$/,
};

const CJK = /[\u3400-\u9fff]/;

/**
 * Normalises what people add around a bare greeting: case, surrounding spaces, trailing
 * punctuation, emoji and sentence particles (啊, 呀, 哦, ~). Anything else stays, so the whole
 * message must be the phrase.
 */
function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\u3000]+/g, ' ')
    .trim()
    .replace(/[!！.。~～…,，:)\s\p{Extended_Pictographic}\uFE0F\u200D]+$/u, '')
    .replace(/^[\p{Extended_Pictographic}\uFE0F\u200D\s]+/u, '')
    .replace(/(?<=[\u3400-\u9fff])[啊呀哦哈啦嘛呢]+$/u, '')
    .replace(/[!！.。~～…,，\s]+$/u, '');
}

/**
 * Recognises greetings, thanks and goodbyes in English and Chinese when they are the whole
 * message. Deliberately narrow: anything not on the lists, any question, any request — even after
 * a greeting ("你好，帮我查一下天气") — returns undefined and goes to the model.
 */
export function classifyTrivial(text: string): TrivialMatch | undefined {
  if (text.length > 40) return undefined;
  const t = normalise(text);
  if (!t || /[?？]/.test(t)) return undefined;
  const zh = CJK.test(t);
  const table = zh ? ZH : EN;
  for (const kind of ['greeting', 'thanks', 'farewell'] as const) {
    if (table[kind].test(t)) return { kind, zh };
  }
  return undefined;
}
