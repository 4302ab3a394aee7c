-- The CLI bridge (issue 26, docs/adr/0017-cli-bridge.md): which chat drives which coding CLI. A row
-- says that the chat's messages go to the tmux session named here, verbatim, instead of to an agent;
-- it outlives a gateway restart, which re-attaches the session by name. One binding per chat.
CREATE TABLE "cli_bindings" (
  "session_key"  TEXT NOT NULL,
  "cli"          TEXT NOT NULL,
  "work_dir"     TEXT NOT NULL,
  "tmux_session" TEXT NOT NULL,
  "bound_by"     TEXT NOT NULL,
  "bound_at"     TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "cli_bindings_pkey" PRIMARY KEY ("session_key")
);
