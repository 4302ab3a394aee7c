import 'reflect-metadata';
import fastifyCookie from '@fastify/cookie';
import { LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Server } from 'node:http';
import { preloadTokenizer } from '@nestclaw/common';
import { loadConfig, defaultConfigPath, ConfigService, logLevelsFor, writeGatewayInfo } from '@nestclaw/config';
import { DatabaseService } from '@nestclaw/db';
import { telemetry } from '@nestclaw/observability';
import { GatewayModule } from './gateway.module';
import { fastifyErrorOptions } from './errors/fastify-errors';
import { addressInUse, assertAddressFree } from './http/address-in-use';
import { closeDraining } from './http/drain-on-close';
import { assertEmbeddedDatabaseOwned } from './http/embedded-single-process';
import { acceptJsonBodiesOnly } from './http/json-bodies-only';
import { keepRawWebhookBodies } from './http/raw-webhook-bodies';
import { sendSecurityHeaders } from './http/security-headers';
import { configSecrets, gatewayLogger } from './observability/gateway-logger';
import { serveUiFiles } from './ui/ui-files';
import { GatewayWsAdapter } from './ws/gateway-ws.adapter';
import { WebSessionSockets } from './ws/web-session-sockets';
import { WsUpgradeAuth } from './ws/ws-upgrade.auth';

export interface GatewayOptions {
  /** `--config`; default `$NESTCLAW_HOME/config.yaml`. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Override the configured port (tests use 0 for a free one). */
  port?: number;
  logLevels?: LogLevel[];
  watchConfig?: boolean;
}

export interface RunningGateway {
  app: NestFastifyApplication;
  /** http://host:port */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Builds and starts the gateway; shared by `main.ts`, `nestclaw start` and the e2e tests. Signals are
 * main.ts's business (it stops the app and exits 0), so none are handled here.
 */
export async function startGateway(options: GatewayOptions = {}): Promise<RunningGateway> {
  const env = options.env ?? process.env;
  const configPath = options.configPath ?? defaultConfigPath(env);
  // Validate once up front so a bad file fails with one readable message, before Nest starts.
  const { config } = loadConfig(configPath, env);
  await assertAddressFree(config.server.host, options.port ?? config.server.port);
  const logLevels = options.logLevels ?? logLevelsFor(config.log.level);
  // Before Nest builds any provider, so breaker and pool gauges can register from constructors.
  telemetry.configure({
    metrics: config.observability.metrics.enabled,
    captureContent: config.observability.tracing.capture_content,
    version: process.env.npm_package_version ?? '0.1.0',
  });
  telemetry.preinitialize(Object.keys(config.agents), Object.keys(config.models));

  preloadTokenizer();
  const adapter = new FastifyAdapter({ bodyLimit: config.server.body_limit, trustProxy: false, ...fastifyErrorOptions() });
  acceptJsonBodiesOnly(adapter);
  // The webhook route's own limit: the largest hook's max_body (with no hook, 64 KiB, max_body's default).
  keepRawWebhookBodies(adapter, Math.max(0, ...Object.values(config.webhooks).map((h) => h.max_body)) || 64 * 1024);
  serveUiFiles(adapter);
  sendSecurityHeaders(adapter);
  const logger = gatewayLogger(config, env, logLevels);
  const app = await NestFactory.create<NestFastifyApplication>(
    GatewayModule.forRoot({ path: configPath, env, watch: options.watchConfig, loaded: config }),
    adapter,
    // Fastify's own JSON parser (same body limit and prototype-poisoning rules) is the only one.
    { logger, bufferLogs: false, bodyParser: false },
  );
  const configService = app.get(ConfigService);
  try {
    assertEmbeddedDatabaseOwned(app.get(DatabaseService), configService.home);
  } catch (e) {
    await app.close().catch(() => undefined);
    throw e;
  }
  // A reload may bring new keys or tokens: scrub those too.
  configService.register({ reconfigure: (next) => logger.scrubber.setSecrets(configSecrets(next, env)) });
  // Sets the web session cookie; `hook: false`: cookies are parsed only where one is read (a request
  // without a bearer token), never on every request.
  await app.register(fastifyCookie, { hook: false });
  const upgrades = app.get(WsUpgradeAuth);
  const webSessionSockets = app.get(WebSessionSockets);
  app.useWebSocketAdapter(
    new GatewayWsAdapter(app.getHttpServer() as Server, {
      maxPayload: config.server.body_limit,
      pingIntervalMs: config.server.ws_ping_interval,
      verify: (req) => upgrades.verify(req),
      opened: (ws, req) => webSessionSockets.opened(ws, req),
    }),
  );

  const live = configService.get().server;
  const port = options.port ?? live.port;
  try {
    await app.listen({ port, host: live.host });
  } catch (e) {
    // The database and workers are up by now: stop them before saying why nothing listens.
    await app.close().catch(() => undefined);
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw addressInUse(live.host, port);
    throw e;
  }
  const address = app.getHttpServer().address() as { port: number };
  const host = live.host.includes(':') ? `[${live.host}]` : live.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`;
  // `nestclaw doctor` (and other commands) find this gateway through $NESTCLAW_HOME/gateway.json.
  const forget = writeGatewayInfo(configService.home, { pid: process.pid, url });
  return {
    app,
    port: address.port,
    url,
    close: async () => {
      forget();
      await closeDraining(app.getHttpServer() as Server, () => app.close());
    },
  };
}
