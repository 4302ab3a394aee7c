/** What a token may do. The owner token (NESTCLAW_TOKEN or $NESTCLAW_HOME/token) holds all of them. */
/** `metrics`: read /metrics only (a Prometheus scrape token). */
export const SCOPES = ['admin', 'chat', 'approve', 'metrics'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who made a request, as established by the gateway's auth guard. */
export interface Principal {
  /** "owner" for the owner token; the token id for paired tokens. */
  id: string;
  name: string;
  scopes: readonly Scope[];
}

export const OWNER: Principal = { id: 'owner', name: 'owner', scopes: SCOPES };
