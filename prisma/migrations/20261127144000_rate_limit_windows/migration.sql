-- Rate-limit windows shared by every replica (issue 24, item 5). A per-token or per-sender limit of N
-- per window must admit N in total across the deployment, not N per gateway process: each limited
-- request counts itself here with one UPSERT … RETURNING (RateLimitRepository.countHit), which also
-- starts a fresh window once the old one is over. Rows whose window ended are pruned now and then.
CREATE TABLE "rate_limit_windows" (
  "key"          TEXT NOT NULL,
  "window_start" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "window_ms"    INTEGER NOT NULL,
  "hits"         INTEGER NOT NULL DEFAULT 1,
  CONSTRAINT "rate_limit_windows_pkey" PRIMARY KEY ("key")
);
