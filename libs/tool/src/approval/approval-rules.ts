import type { ToolsConfig } from '@nestclaw/config';

/**
 * Whether a call needs a human (before remembered rules are consulted): tools listed under
 * `tools.approval.required`, except http_request with a safe method (GET/HEAD by default).
 */
export function approvalRequired(rules: ToolsConfig['approval'], tool: string, input: unknown): boolean {
  if (!rules.required.includes(tool)) return false;
  if (tool === 'http_request') {
    const method = String((input as { method?: string } | null)?.method ?? 'GET').toUpperCase();
    return !rules.safe_http_methods.map((m) => m.toUpperCase()).includes(method);
  }
  return true;
}
