import { Injectable, Logger } from '@nestjs/common';
import { countChatTokens, countTokens } from '@nestclaw/common';
import { AgentConfig, ConfigService } from '@nestclaw/config';
import type { ChatMessage, LlmCallRecord, ToolDefinition } from '@nestclaw/provider';
import { HookRegistry } from '@nestclaw/tool';
import type { StoredMessage } from '../session/session.types';
import { historyToMessages } from '../turn/prompt.builder';
import { CompactionRecord, CompactionRepository, NewSummary } from './compaction.repository';
import { contextBudget, ContextBudget } from './context-window';
import { Summarizer, SummaryFailedError } from './summarizer';
import { splitByTokenShare, SummaryItem, toSummaryItems } from './summary-items';

export interface FitRequest {
  sessionId: string;
  agentId: string;
  agent: AgentConfig;
  system: string | undefined;
  /** Stored messages before the current turn (the last `history_limit`). */
  history: StoredMessage[];
  historyLimit: number;
  /**
   * The session's active summaries when the caller already has them (the opening statement reads
   * them; a fit returns the ones it used), so fitting costs no statement; read here when absent.
   */
  summaries?: CompactionRecord[];
  /** The current turn so far (client context, the user message, tool steps). */
  current: ChatMessage[];
  tools?: ToolDefinition[];
  /** `context_length`: the model refused the last request; summarise all history before the current turn. */
  force?: 'context_length';
  signal?: AbortSignal;
}

export interface FitResult {
  messages: ChatMessage[];
  /** Summarisation calls made (to bill with the turn). */
  calls: LlmCallRecord[];
  compacted: boolean;
  tokens: number;
  /** The active summaries after this fit (new ones when it compacted), for the turn's next fit. */
  summaries: CompactionRecord[];
}

export interface CompactReport {
  summarisedMessages: number;
  merged: number;
  calls: LlmCallRecord[];
}

/**
 * Keeps a session's requests inside the model's window without losing the past: older turns are
 * summarised in stages (split by token share, summarise each part, merge the summaries when they
 * grow) and stored as compaction records; recent turns stay verbatim. Stage 1 covers each message
 * once, stage 2 covers each stage-1 summary once, so nothing is summarised more than twice.
 */
@Injectable()
export class CompactionService {
  private readonly logger = new Logger('Compaction');

  constructor(
    private readonly config: ConfigService,
    private readonly records: CompactionRepository,
    private readonly summarizer: Summarizer,
    private readonly hooks: HookRegistry,
  ) {}

  budget(agent: AgentConfig): ContextBudget {
    return contextBudget(this.config.get(), agent);
  }

  /** The request for this turn: summaries + verbatim history + current turn, compacting first when needed. */
  async fit(req: FitRequest): Promise<FitResult> {
    const b = this.budget(req.agent);
    let active = req.summaries ?? (await this.records.findActive(req.sessionId));
    let covered = coveredUpTo(active);
    let history = req.history.filter((m) => m.seq > covered);
    // The history query stops at history_limit: older messages not yet summarised must be, not dropped.
    const gap = req.history.length >= req.historyLimit && (history[0]?.seq ?? covered + 1) > covered + 1;
    let messages = assemble(req.system, active, history, req.current, b.summaries);
    let tokens = countChatTokens(messages, req.tools);
    if (!req.force && !gap && tokens <= b.budget) return { messages, calls: [], compacted: false, tokens, summaries: active };

    // Closing a gap keeps at most half the window verbatim, so the next gap opens only after that many
    // more messages: one summary every few turns, not one for the two messages each turn slides out.
    const keepMessages = gap ? Math.floor(req.historyLimit / 2) : Infinity;
    const keepFrom = req.force ? (history.at(-1)?.seq ?? covered) + 1 : firstKeptSeq(history, b.keepRecent, covered, keepMessages);
    const calls: LlmCallRecord[] = [];
    const reason = req.force ?? 'budget';
    await this.summariseRange(req, covered, keepFrom, reason, b, calls);
    await this.mergeIfLarge(req, b, calls);
    active = await this.records.findActive(req.sessionId);
    covered = coveredUpTo(active);
    history = req.history.filter((m) => m.seq > covered);
    messages = assemble(req.system, active, history, req.current, b.summaries);
    tokens = countChatTokens(messages, req.tools);
    if (tokens > b.budget) this.logger.warn(`session ${req.sessionId}: ${tokens} tokens after compaction (budget ${b.budget})`);
    return { messages, calls, compacted: true, tokens, summaries: active };
  }

  /** `/compact`: summarise everything but the last turn now, and merge the stage-1 summaries. */
  async compactNow(sessionId: string, agentId: string, agent: AgentConfig, signal?: AbortSignal): Promise<CompactReport> {
    const b = this.budget(agent);
    const covered = coveredUpTo(await this.records.findActive(sessionId));
    const rest = await this.records.findUncompacted(sessionId, covered, 2 ** 31 - 1);
    const lastTurn = rest.at(-1)?.turnId;
    // Asked for explicitly: summarise all but the last turn, which the user is looking at.
    const keepFrom = rest.find((m) => m.turnId === lastTurn)?.seq ?? covered + 1;
    const calls: LlmCallRecord[] = [];
    const req = { sessionId, agentId, agent, signal };
    const summarised = await this.summariseRange(req, covered, keepFrom, 'manual', b, calls);
    const merged = await this.mergeIfLarge(req, b, calls, true);
    return { summarisedMessages: summarised, merged, calls };
  }

  sessionAgent(sessionId: string): Promise<string | undefined> {
    return this.records.findSessionAgent(sessionId);
  }

  listRecords(sessionId: string): Promise<CompactionRecord[]> {
    return this.records.findAllForSession(sessionId);
  }

  private async summariseRange(
    req: Pick<FitRequest, 'sessionId' | 'agentId' | 'agent' | 'signal'>,
    covered: number,
    keepFrom: number,
    reason: 'budget' | 'manual' | 'context_length',
    b: ContextBudget,
    calls: LlmCallRecord[],
  ): Promise<number> {
    if (keepFrom <= covered + 1) return 0;
    const rows = await this.records.findUncompacted(req.sessionId, covered, keepFrom);
    if (rows.length === 0) return 0;
    await this.hooks.preCompact({ sessionId: req.sessionId, agentId: req.agentId, reason, fromSeq: covered + 1, toSeq: keepFrom - 1 });
    const parts = splitByTokenShare(toSummaryItems(rows, Math.floor(b.maxPart / 2)), b.maxPart);
    const out: NewSummary[] = [];
    let from = covered + 1;
    for (const [i, part] of parts.entries()) {
      const to = i === parts.length - 1 ? keepFrom - 1 : part[part.length - 1].seq;
      const s = await this.summarisePart(req, part, b, calls);
      out.push({ fromSeq: from, toSeq: to, ...s });
      from = to + 1;
    }
    if (!(await this.records.insertSummaries(req.sessionId, covered, out))) {
      this.logger.warn(
        `session ${req.sessionId}: messages ${covered + 1}-${keepFrom - 1} were compacted concurrently; kept the other result`,
      );
      return 0;
    }
    this.logger.log(`session ${req.sessionId}: summarised messages ${covered + 1}-${keepFrom - 1} in ${parts.length} part(s) (${reason})`);
    return rows.length;
  }

  private async summarisePart(
    req: Pick<FitRequest, 'agent' | 'signal'>,
    part: SummaryItem[],
    b: ContextBudget,
    calls: LlmCallRecord[],
  ): Promise<Pick<NewSummary, 'summary' | 'usage'>> {
    // Only notes of oversized messages: nothing for a model to summarise.
    if (part.every((i) => i.oversized)) return { summary: part.map((i) => i.text).join('\n'), usage: noUsage() };
    const res = await this.call(
      () => this.summarizer.summarise(req.agent, part.map((i) => i.text).join('\n'), b.maxSummary, req.signal),
      calls,
    );
    const notes = part.filter((i) => i.oversized).map((i) => i.text);
    return { summary: [res.text, ...notes].join('\n'), usage: usageOf(res.calls) };
  }

  /** Stage 2: when the unmerged stage-1 summaries outgrow their budget (or on /compact), merge them into one. */
  private async mergeIfLarge(
    req: Pick<FitRequest, 'sessionId' | 'agent' | 'signal'>,
    b: ContextBudget,
    calls: LlmCallRecord[],
    always = false,
  ): Promise<number> {
    const active = await this.records.findActive(req.sessionId);
    const stage1 = active.filter((r) => r.stage === 1);
    const size = active.reduce((n, r) => n + countTokens(r.summary), 0);
    if (stage1.length < 2 || (!always && size <= b.summaries)) return 0;
    const res = await this.call(
      () =>
        this.summarizer.merge(
          req.agent,
          stage1.map((r) => r.summary),
          b.maxSummary,
          req.signal,
        ),
      calls,
    );
    const merge: NewSummary = {
      fromSeq: stage1[0].fromSeq,
      toSeq: stage1[stage1.length - 1].toSeq,
      summary: res.text,
      usage: usageOf(res.calls),
    };
    const ok = await this.records.insertMerge(
      req.sessionId,
      stage1.map((r) => r.id),
      merge,
    );
    if (ok) this.logger.log(`session ${req.sessionId}: merged ${stage1.length} summaries of messages ${merge.fromSeq}-${merge.toSeq}`);
    return ok ? stage1.length : 0;
  }

  private async call<T extends { calls: LlmCallRecord[] }>(fn: () => Promise<T>, calls: LlmCallRecord[]): Promise<T> {
    try {
      const res = await fn();
      calls.push(...res.calls);
      return res;
    } catch (e) {
      if (e instanceof SummaryFailedError) calls.push(...e.calls);
      throw e;
    }
  }
}

/** Turns of the verbatim tail: the newest whole turns that fit in `keep` tokens. */
function firstKeptSeq(history: readonly StoredMessage[], keep: number, covered: number, keepMessages = Infinity): number {
  let first = (history.at(-1)?.seq ?? covered) + 1;
  let used = 0;
  for (let i = history.length - 1; i >= 0;) {
    const turnId = history[i].turnId;
    let j = i;
    let size = 0;
    while (j >= 0 && history[j].turnId === turnId) size += countTokens(history[j--].content) + 4;
    if (used + size > keep || history.length - 1 - j > keepMessages) break;
    used += size;
    first = history[j + 1].seq;
    i = j;
  }
  return first;
}

const coveredUpTo = (active: readonly CompactionRecord[]) => active.reduce((n, r) => Math.max(n, r.toSeq), 0);

/** System prompt (+ summaries as its last section) → verbatim history → the current turn. */
function assemble(
  system: string | undefined,
  active: readonly CompactionRecord[],
  history: readonly StoredMessage[],
  current: readonly ChatMessage[],
  summaryBudget: number,
): ChatMessage[] {
  const block = summaryBlock(active, summaryBudget);
  const head = [system, block].filter(Boolean).join('\n\n');
  return [...(head ? [{ role: 'system' as const, content: head }] : []), ...historyToMessages(history), ...current];
}

/**
 * The summaries, oldest first. Merged (stage-2) summaries are final; if even they outgrow twice the
 * budget the oldest are left out with a note rather than summarised a third time.
 */
function summaryBlock(active: readonly CompactionRecord[], budget: number): string {
  if (active.length === 0) return '';
  const shown = [...active];
  let omitted: { from: number; to: number } | undefined;
  while (shown.length > 1 && shown[0].stage === 2 && shown.reduce((n, r) => n + countTokens(r.summary), 0) > budget * 2) {
    const r = shown.shift()!;
    omitted = { from: omitted?.from ?? r.fromSeq, to: r.toSeq };
  }
  const parts = shown.map((r) => `Messages ${r.fromSeq}-${r.toSeq}:\n${r.summary}`);
  if (omitted) parts.unshift(`(Summaries of messages ${omitted.from}-${omitted.to} are stored but left out for space.)`);
  return `## Earlier in this conversation (summarised)\n${parts.join('\n\n')}`;
}

const noUsage = () => ({ calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });

function usageOf(calls: readonly LlmCallRecord[]): NewSummary['usage'] {
  return {
    calls: calls.length,
    inputTokens: calls.reduce((n, c) => n + c.usage.inputTokens, 0),
    outputTokens: calls.reduce((n, c) => n + c.usage.outputTokens, 0),
    costUsd: calls.reduce((n, c) => n + c.costUsd, 0),
  };
}
