/**
 * Compiled by `npm run lint` (tsc -p apps/ui/tsconfig.json), never bundled: it proves that `api()`
 * refuses what the gateway's OpenAPI document does not allow. Each `@ts-expect-error` must meet an
 * error, so a typing that let these through would fail the type check.
 */
import { api } from './api';

export function typedApiCalls(id: string): void {
  // Allowed: documented paths with their parameters filled in, a query string, each method's body.
  void api<unknown>('/v1/sessions?q=x');
  void api<unknown>(`/v1/cron/${id}/runs?limit=3`);
  void api<unknown>('/v1/cron', { json: { schedule: { every: '1h' }, message: '你好' } });
  void api<unknown>(`/v1/agents/${id}/skills/${id}`, { method: 'PUT', json: { content: '---\n---' } });
  void api<unknown>(`/v1/cron/${id}`, { method: 'DELETE' });

  // @ts-expect-error no such route
  void api<unknown>('/v1/sesions');
  // @ts-expect-error the body misses a required field (message)
  void api<unknown>('/v1/cron', { json: { schedule: { every: '1h' } } });
  // @ts-expect-error a field of the wrong type
  void api<unknown>(`/v1/agents/${id}/skills/${id}`, { method: 'PUT', json: { content: 42 } });
  // @ts-expect-error a method the route does not answer
  void api<unknown>('/v1/sessions', { method: 'DELETE' });
  // @ts-expect-error a body for a route that takes none
  void api<unknown>('/v1/config/security/check', { json: {} });
}
