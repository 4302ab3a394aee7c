/** Patterns that look like credentials wherever they appear in a log message. */
const PATTERNS: RegExp[] = [
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\b(postgres(?:ql)?:\/\/[^:/@\s]+:)[^@\s]+@/gi,
  /\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/g, // Telegram bot tokens
];

/**
 * Removes secrets from log text: the configured secret values themselves (API keys, channel tokens,
 * the owner token, the database password) and anything shaped like a credential.
 */
export class SecretScrubber {
  private secrets: string[] = [];

  setSecrets(values: Iterable<string | undefined>): void {
    this.secrets = [...new Set([...values].filter((v): v is string => !!v && v.length >= 6))].sort((a, b) => b.length - a.length);
  }

  scrub(text: string): string {
    let out = text;
    for (const s of this.secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
    for (const p of PATTERNS) {
      out = out.replace(p, (match: string, prefix?: string) =>
        typeof prefix === 'string' && prefix.startsWith('postgres')
          ? `${prefix}[redacted]@`
          : match.startsWith('Bearer') || match.startsWith('Basic')
            ? `${match.split(/\s+/)[0]} [redacted]`
            : '[redacted]',
      );
    }
    return out;
  }
}
