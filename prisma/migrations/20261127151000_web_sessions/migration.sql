-- Browser sign-in without a token in a URL (issue 25, item 2; docs/security.md "Web sessions").
-- A browser trades a token or a one-time login code for a random session id kept in an HttpOnly
-- cookie; only its sha256 is stored here. A session carries the scopes of the token it came from
-- (token_id NULL: the owner token) and ends when it expires (sliding), on sign-out, or when that
-- token is revoked (PairedTokenService.revoke deletes its rows; the cookie check also joins
-- api_tokens, so a revoked token's session is refused even before that delete).
CREATE TABLE "web_sessions" (
  "id"           UUID NOT NULL,
  "id_hash"      TEXT NOT NULL,
  "token_id"     UUID,
  "scopes"       TEXT[] NOT NULL,
  "created_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "expires_at"   TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "web_sessions_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "web_sessions_id_hash_key" ON "web_sessions"("id_hash");
CREATE INDEX "web_sessions_token_id_idx" ON "web_sessions"("token_id");
CREATE INDEX "web_sessions_expires_at_idx" ON "web_sessions"("expires_at");

-- `nestclaw ui`: a one-time code (2 minutes, single use, sha256 only) that opens a web session with
-- the scopes of the token that asked for it.
CREATE TABLE "web_login_codes" (
  "code_hash"  TEXT NOT NULL,
  "token_id"   UUID,
  "scopes"     TEXT[] NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "used_at"    TIMESTAMPTZ(3),
  CONSTRAINT "web_login_codes_pkey" PRIMARY KEY ("code_hash")
);
CREATE INDEX "web_login_codes_expires_at_idx" ON "web_login_codes"("expires_at");
