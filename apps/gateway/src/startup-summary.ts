import type { INestApplication } from '@nestjs/common';
import { ChannelRegistry } from '@nestclaw/channel';
import { BUILT_IN_CHANNELS, ConfigService, isBuiltInChannel, NestclawConfig } from '@nestclaw/config';
import { DatabaseService } from '@nestclaw/db';
import { ExecutorSelector, SandboxStatus } from '@nestclaw/tool';

/** What a person starting nestclaw needs to know, gathered from the running app. */
export interface StartupFacts {
  url: string;
  config: NestclawConfig;
  database: { embeddedDir?: string; engine?: string; url: string };
  sandbox: SandboxStatus;
  /** Channels trusted plugins added (the built-in ones are read from config). */
  pluginChannels?: string[];
}

export const NO_MODEL_HELP =
  'no model configured: set OPENAI_API_KEY (and OPENAI_BASE_URL, NESTCLAW_MODEL for another OpenAI-compatible service) or add models: to config.yaml';

/** A server database as host:port/name: where it is, never who logs in or with what password. */
function serverDatabase(url: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL at ${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'PostgreSQL at DATABASE_URL (not a URL nestclaw can show)';
  }
}

function models(config: NestclawConfig): string {
  const chat = Object.entries(config.models).filter(([, m]) => m.kind === 'chat');
  if (chat.length === 0) return NO_MODEL_HELP;
  const { primary, fallback } = config.providers;
  const name = (id: string) => {
    const m = config.models[id];
    return m ? `${id} (${m.provider} ${m.model})` : id;
  };
  const chain = [primary ?? chat[0][0], ...fallback.filter((f) => f !== primary)];
  return `model: ${chain.map(name).join(', then ')}`;
}

function memory(config: NestclawConfig): string {
  const m = config.memory;
  if (!m.enabled) return 'memory: off';
  const embedding = m.embedding_model ?? Object.entries(config.models).find(([, model]) => model.kind === 'embedding')?.[0];
  const recall = embedding ? `${m.recall.mode} recall (embeddings: ${embedding})` : 'keyword recall (no embedding model)';
  const turns = m.transcripts ? 'remembers finished turns (memory.transcripts: false turns that off)' : 'finished turns not remembered';
  return `memory: on, ${recall}, ${turns}`;
}

function sandbox(status: SandboxStatus): string {
  if (status.active === 'native') return 'sandbox: NONE, the shell tool runs commands on the host (tools.sandbox: native)';
  if (status.active) return `sandbox: ${status.active}`;
  const files = status.files ? 'file tools only, inside the workspace' : 'shell and file tools off';
  return `sandbox: none available, ${files} (install bubblewrap or start Docker for the shell tool)`;
}

/** The lines printed once the gateway is ready, in the order a newcomer reads them. */
export function startupSummaryLines(facts: StartupFacts): string[] {
  const { config, database } = facts;
  const builtIn = BUILT_IN_CHANNELS.filter((c) => config.channels[c].enabled);
  const channels = [...builtIn, ...(facts.pluginChannels ?? []).map((c) => `${c} (plugin)`)];
  return [
    `listening on ${facts.url}`,
    `database: ${
      database.embeddedDir
        ? `embedded ${database.engine === 'pglite' ? 'PGlite' : 'PostgreSQL'} in ${database.embeddedDir}`
        : serverDatabase(database.url)
    }`,
    models(config),
    `channels: ${channels.length ? channels.join(', ') : 'none (HTTP, WebSocket and the OpenAI-compatible API only)'}`,
    sandbox(facts.sandbox),
    memory(config),
  ];
}

export async function gatherStartupFacts(app: INestApplication, url: string): Promise<StartupFacts> {
  const db = app.get(DatabaseService);
  return {
    url,
    config: app.get(ConfigService).get(),
    database: { embeddedDir: db.embedded?.dataDir, engine: db.embedded?.engine, url: db.url },
    // Selected while the app started: this returns the cached choice.
    sandbox: await app.get(ExecutorSelector).status(),
    pluginChannels: app
      .get(ChannelRegistry)
      .list()
      .map((a) => a.id)
      .filter((id) => !isBuiltInChannel(id)),
  };
}
