import type { ToolsConfig } from '@nestclaw/config';

type Rules = ToolsConfig['hooks'];

const applies = (ruleTool: string, tool: string) => ruleTool === '*' || ruleTool === tool;

function compile(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern, 'i');
  } catch {
    return null;
  }
}

/** PreToolUse from config: the first `block` rule whose pattern matches the input (as JSON) wins. */
export function configBlock(rules: Rules, tool: string, input: unknown): string | undefined {
  const text = JSON.stringify(input);
  for (const r of rules.block) {
    if (!applies(r.tool, tool)) continue;
    const re = compile(r.pattern);
    // An invalid pattern blocks: a rule meant to protect must not silently stop working.
    if (!re || re.test(text)) return r.reason ?? `blocked by hook rule /${r.pattern}/`;
  }
  return undefined;
}

/** PostToolUse from config: replaces matches of every `redact` rule with [redacted]. */
export function configRedact(rules: Rules, tool: string, output: string): string {
  let out = output;
  for (const r of rules.redact) {
    if (!applies(r.tool, tool)) continue;
    const re = compile(r.pattern);
    if (re) out = out.replace(new RegExp(re.source, 'gi'), '[redacted]');
  }
  return out;
}
