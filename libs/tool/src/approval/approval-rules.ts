import type { ToolsConfig } from '@nestclaw/config';

/**
 * Whether a call needs a human (before remembered rules are consulted): tools listed under
 * `tools.approval.required`, except http_request with a safe method (GET/HEAD by default).
 */
export function approvalRequired(rules: ToolsConfig['approval'], tool: string, input: unknown): boolean {
  return approvalRule(rules, tool, input) !== undefined;
}

/** The configured rule that makes a call wait for a human, in words for the person deciding; undefined: none does. */
export function approvalRule(rules: ToolsConfig['approval'], tool: string, input: unknown): string | undefined {
  if (!rules.required.includes(tool)) return undefined;
  if (tool === 'http_request') {
    const method = String((input as { method?: string } | null)?.method ?? 'GET').toUpperCase();
    const safe = rules.safe_http_methods.map((m) => m.toUpperCase());
    if (safe.includes(method)) return undefined;
    return `tools.approval.required lists http_request, and ${method} is not in tools.approval.safe_http_methods (${safe.join(', ') || 'none'})`;
  }
  return `tools.approval.required lists ${tool}`;
}
