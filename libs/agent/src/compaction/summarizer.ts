import { Injectable } from '@nestjs/common';
import { countTokens } from '@nestclaw/common';
import type { AgentConfig } from '@nestclaw/config';
import { LlmCallRecord, ProviderChainError, ReliableProvider } from '@nestclaw/provider';

/** Marks summarisation requests (and lets test fakes recognise them). */
export const SUMMARY_INSTRUCTIONS = (words: number) =>
  `You compress part of a conversation between a user and an AI assistant into notes the assistant will rely on instead of the messages. ` +
  `Keep every fact, name, number, date, preference, decision, promise and open question; drop greetings and filler. ` +
  `Write in the conversation's language, as terse bullet points, at most ${words} words. Output only the notes.`;

export const MERGE_INSTRUCTIONS = (words: number) =>
  `You merge consecutive partial notes of one conversation (oldest first) into one set of notes. ` +
  `Keep every fact, name, number, date, preference, decision, promise and open question; remove repetition; where a later note corrects an earlier one keep the later. ` +
  `Write in the notes' language, as terse bullet points, at most ${words} words. Output only the notes.`;

export interface SummaryResult {
  text: string;
  calls: LlmCallRecord[];
}

/** The model calls of compaction: one per part, one per merge. */
@Injectable()
export class Summarizer {
  constructor(private readonly provider: ReliableProvider) {}

  summarise(agent: AgentConfig, transcript: string, maxTokens: number, signal?: AbortSignal): Promise<SummaryResult> {
    return this.ask(agent, SUMMARY_INSTRUCTIONS(wordsFor(maxTokens)), transcript, maxTokens, signal);
  }

  merge(agent: AgentConfig, partials: string[], maxTokens: number, signal?: AbortSignal): Promise<SummaryResult> {
    const body = partials.map((p, i) => `### Part ${i + 1}\n${p}`).join('\n\n');
    return this.ask(agent, MERGE_INSTRUCTIONS(wordsFor(maxTokens)), body, maxTokens, signal);
  }

  private async ask(agent: AgentConfig, system: string, user: string, maxTokens: number, signal?: AbortSignal): Promise<SummaryResult> {
    try {
      const { response, calls } = await this.provider.chat(
        {
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: user },
          ],
          maxTokens,
          temperature: 0,
          signal,
        },
        { primary: agent.compaction.model ?? agent.model, fallback: agent.fallback, signal },
      );
      return { text: cutToTokens(response.content.trim(), maxTokens), calls };
    } catch (e) {
      if (e instanceof ProviderChainError) throw new SummaryFailedError(e, e.calls);
      throw e;
    }
  }
}

/** A summarisation call failed; carries its call records so they are still billed. */
export class SummaryFailedError extends Error {
  constructor(
    override readonly cause: Error,
    readonly calls: LlmCallRecord[],
  ) {
    super(`summarising older messages failed: ${cause.message}`);
  }
}

/** Words that fit in `tokens` with room to spare (CJK text runs about one token per character). */
const wordsFor = (tokens: number) => Math.max(30, Math.floor(tokens * 0.6));

const CUT_NOTE = '\n(summary cut to its length budget)';

/**
 * A model may ignore max_tokens: a summary longer than asked would push every later request of the
 * session past the window. Keeps the longest prefix (whole code points, so Chinese stays intact,
 * ending at a line break where one is near) that fits with the note saying it was cut.
 */
export function cutToTokens(text: string, maxTokens: number): string {
  if (countTokens(text) <= maxTokens) return text;
  const room = maxTokens - countTokens(CUT_NOTE);
  // No token is longer than a few dozen characters: tokenise only a bounded head of a huge answer.
  const chars = Array.from(text.slice(0, maxTokens * 32));
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(chars.slice(0, mid).join('')) <= room) lo = mid;
    else hi = mid - 1;
  }
  let head = chars.slice(0, lo).join('');
  const lastLine = head.lastIndexOf('\n');
  if (lastLine > head.length * 0.8) head = head.slice(0, lastLine);
  return head.trimEnd() + CUT_NOTE;
}
