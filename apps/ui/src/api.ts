import type { ApiCall, ApiInit } from './api-routes';

/** The gateway's error body, `{"error":{"code","message"}}`, as a thrown value. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Called when any API answer says the session is gone (expired, revoked, signed out elsewhere). */
let onUnauthorized: () => void = () => undefined;
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

/**
 * JSON over same-origin fetch: the HttpOnly session cookie goes along by itself, so no token is ever
 * in this page's memory, storage or URLs. Typed from the gateway's OpenAPI document (api-routes.ts):
 * only a documented path, with the method and body its route accepts, type-checks.
 */
export const api = callApi as ApiCall;

async function callApi<T>(path: string, init: ApiInit = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    credentials: 'same-origin',
    headers: { accept: 'application/json', ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) {
    const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
    if (res.status === 401 && !init.wrongCodeOn401) onUnauthorized();
    throw new ApiError(res.status, error?.code ?? 'http_error', error?.message ?? `HTTP ${res.status}`);
  }
  return body as T;
}

export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
