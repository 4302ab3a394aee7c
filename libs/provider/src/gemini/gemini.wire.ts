import type { ChatMessage, FinishReason, ToolCall, ToolDefinition, Usage } from '../model-provider.port';
import type { HttpFailure } from '../provider.errors';

/** The parts of Gemini's generateContent wire format nestclaw uses (v1beta REST). */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiResponse {
  candidates?: { content?: { parts?: GeminiPart[] }; finishReason?: string }[];
  usageMetadata?: {
    promptTokenCount?: number;
    candidatesTokenCount?: number;
    cachedContentTokenCount?: number;
    thoughtsTokenCount?: number;
    toolUsePromptTokenCount?: number;
  };
  modelVersion?: string;
  promptFeedback?: { blockReason?: string };
}

export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: { name: string; description: string; parameters?: Record<string, unknown> }[] }[];
  generationConfig?: { temperature?: number; maxOutputTokens?: number };
}

function parseArgs(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
  } catch {
    return { _raw: args };
  }
}

/**
 * Gemini takes function responses by name, not id: the name comes from the tool message or, failing
 * that, from the assistant turn that made the call. Consecutive turns of one role are merged.
 */
export function contentsOf(messages: ChatMessage[]): GeminiContent[] {
  const names = new Map<string, string>();
  const out: GeminiContent[] = [];
  const push = (role: GeminiContent['role'], parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  };
  for (const m of messages) {
    switch (m.role) {
      case 'system':
        break;
      case 'user':
        push('user', [{ text: m.content }]);
        break;
      case 'assistant':
        for (const c of m.toolCalls ?? []) names.set(c.id, c.name);
        push('model', [
          ...(m.content ? [{ text: m.content }] : []),
          ...(m.toolCalls ?? []).map((c) => ({ functionCall: { name: c.name, args: parseArgs(c.arguments) } })),
        ]);
        break;
      case 'tool': {
        let response: Record<string, unknown>;
        try {
          const parsed: unknown = JSON.parse(m.content);
          response =
            parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { result: parsed };
        } catch {
          response = { result: m.content };
        }
        push('user', [{ functionResponse: { name: m.name ?? names.get(m.toolCallId) ?? 'tool', response } }]);
        break;
      }
    }
  }
  return out;
}

/** Gemini's `parameters` is an OpenAPI subset: JSON Schema keywords it rejects are dropped. */
export function schemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(schemaOf);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$schema' || k === 'additionalProperties' || k === '$id' || k === 'examples' || k === 'const') continue;
    out[k] =
      k === 'properties' && v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, schemaOf(s)]))
        : schemaOf(v);
  }
  return out;
}

export function requestOf(
  messages: ChatMessage[],
  tools: ToolDefinition[] | undefined,
  temperature: number | undefined,
  maxTokens: number | undefined,
): GeminiRequestBody {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const generationConfig = {
    ...(temperature !== undefined ? { temperature } : {}),
    ...(maxTokens ? { maxOutputTokens: maxTokens } : {}),
  };
  return {
    contents: contentsOf(messages),
    ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}),
    ...(tools?.length
      ? {
          tools: [
            {
              functionDeclarations: tools.map((t) => ({
                name: t.name,
                description: t.description,
                parameters: schemaOf(t.parameters) as Record<string, unknown>,
              })),
            },
          ],
        }
      : {}),
    ...(Object.keys(generationConfig).length ? { generationConfig } : {}),
  };
}

export function finishOf(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls) return 'tool_calls';
  switch (reason) {
    case undefined:
    case 'STOP':
      return 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
      return 'content_filter';
    default:
      return 'other';
  }
}

/** Thinking tokens are billed as output. */
export function usageOf(u: GeminiResponse['usageMetadata']): Usage {
  return {
    inputTokens: (u?.promptTokenCount ?? 0) + (u?.toolUsePromptTokenCount ?? 0),
    outputTokens: (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0),
    cachedInputTokens: u?.cachedContentTokenCount ?? 0,
  };
}

/** Visible text and function calls of one response (or one stream chunk); thought parts are skipped. */
export function partsOf(res: GeminiResponse, nextId: () => string): { text: string; calls: ToolCall[] } {
  let text = '';
  const calls: ToolCall[] = [];
  for (const part of res.candidates?.[0]?.content?.parts ?? []) {
    if (part.thought) continue;
    if (part.text) text += part.text;
    if (part.functionCall) {
      calls.push({
        id: part.functionCall.id ?? nextId(),
        name: part.functionCall.name,
        arguments: JSON.stringify(part.functionCall.args ?? {}),
      });
    }
  }
  return { text, calls };
}

interface GeminiErrorBody {
  error?: { code?: number; message?: string; status?: string; details?: { '@type'?: string; reason?: string; retryDelay?: string }[] };
}

/** Gemini reports a bad key as 400 API_KEY_INVALID and the wait after a 429 as RetryInfo.retryDelay. */
export function parseGeminiError(status: number, body: unknown): Partial<HttpFailure> {
  const err = (body as GeminiErrorBody | undefined)?.error;
  const details = err?.details ?? [];
  const delay = details.find((d) => d['@type']?.endsWith('RetryInfo'))?.retryDelay;
  const seconds = delay ? Number(delay.replace(/s$/, '')) : NaN;
  return {
    message: err?.message ? `${err.status ?? status}: ${err.message}` : undefined,
    keyRejected: details.some((d) => d.reason === 'API_KEY_INVALID') || /API key not valid/i.test(err?.message ?? ''),
    retryAfterMs: Number.isFinite(seconds) ? seconds * 1000 : undefined,
  };
}
