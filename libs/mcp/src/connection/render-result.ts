import { ToolError } from '@nestclaw/tool';

interface ContentBlock {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; mimeType?: string };
}

/**
 * A tools/call result as the text the model reads: text blocks as they are, other blocks as a short
 * note (no base64 in the context), structured content as JSON when there is nothing else. A result
 * the server marks `isError` is a ToolError, so the turn records it as a failed call.
 */
export function renderResult(result: Record<string, unknown>): string {
  const blocks = (Array.isArray(result.content) ? result.content : []) as ContentBlock[];
  const parts = blocks.map((b) => {
    switch (b.type) {
      case 'text':
        return b.text ?? '';
      case 'image':
      case 'audio':
        return `[${b.type}: ${b.mimeType ?? 'unknown type'}, ${Math.floor(((b.data ?? '').length * 3) / 4)} bytes, not shown]`;
      case 'resource':
        return b.resource?.text ?? `[resource: ${b.resource?.uri ?? ''}]`;
      case 'resource_link':
        return `[resource: ${b.name ?? ''} ${b.uri ?? ''}]`.replace(/\s+\]$/, ']');
      default:
        return `[${String(b.type)} content, not shown]`;
    }
  });
  let text = parts.join('\n');
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (result.isError === true) throw new ToolError(text || 'the MCP tool reported an error');
  return text;
}
