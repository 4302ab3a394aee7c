import { createHash } from 'node:crypto';
import { MemoByIdentities } from '@nestclaw/common';
import type { ChatRequest } from '../model-provider.port';
import type { RegisteredModel } from '../provider.registry';

/** The tool definitions' digest, once per list of the registry's definition objects (half the hashing of a turn). */
const toolsDigest = new MemoByIdentities((tools) => createHash('sha256').update(JSON.stringify(tools)).digest('hex'));

/** Digest of what was asked (messages and tools), computed once per request. */
export function requestDigest(request: ChatRequest): string {
  return createHash('sha256')
    .update(JSON.stringify(request.messages))
    .update('\0')
    .update(toolsDigest.get(request.tools ?? []))
    .digest('hex');
}

/**
 * `sha256(model, messages, tools, params)`: the same question to the same model with the same
 * settings. The model part is the config name plus the backend, its id and URL, so re-pointing a
 * name at another backend never replays the old backend's answers.
 */
export function idempotencyKey(model: RegisteredModel, request: ChatRequest, digest = requestDigest(request)): string {
  const identity = [model.name, model.config.provider, model.provider.model, model.config.base_url ?? ''];
  const params = [request.temperature ?? model.config.temperature ?? null, request.maxTokens ?? model.config.max_tokens ?? null];
  return createHash('sha256')
    .update(JSON.stringify([identity, digest, params]))
    .digest('hex');
}
