import 'reflect-metadata';
import { LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Server } from 'node:http';
import { loadConfig, defaultConfigPath, ConfigService, logLevelsFor, NestclawConfig, writeGatewayInfo } from '@nestclaw/config';
import { GatewayModule } from './gateway.module';
import { fastifyErrorOptions } from './errors/fastify-errors';
import { GatewayWsAdapter } from './ws/gateway-ws.adapter';
import { WsUpgradeAuth } from './ws/ws-upgrade.auth';
import { RedactingLogger } from './logging/redacting.logger';

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

/** Builds and starts the gateway; shared by `main.ts`, `nestclaw start` and the e2e tests. */
export async function startGateway(options: GatewayOptions = {}): Promise<RunningGateway> {
  const env = options.env ?? process.env;
  const configPath = options.configPath ?? defaultConfigPath(env);
  // Validate once up front so a bad file fails with one readable message, before Nest starts.
  const { config } = loadConfig(configPath, env);
  const logLevels = options.logLevels ?? logLevelsFor(config.log.level);

  const adapter = new FastifyAdapter({ bodyLimit: config.server.body_limit, trustProxy: false, ...fastifyErrorOptions() });
  // Until Nest has built ConfigService, the configuration just loaded is the running one.
  let running = (): NestclawConfig => config;
  const logger = new RedactingLogger(() => running());
  logger.setLogLevels(logLevels);
  const app = await NestFactory.create<NestFastifyApplication>(
    GatewayModule.forRoot({ path: configPath, env, watch: options.watchConfig, loaded: config }),
    adapter,
    { logger, bufferLogs: false },
  );
  const configService = app.get(ConfigService);
  running = () => configService.get();
  app.enableShutdownHooks();
  const upgrades = app.get(WsUpgradeAuth);
  app.useWebSocketAdapter(
    new GatewayWsAdapter(app.getHttpServer() as Server, {
      maxPayload: config.server.body_limit,
      pingIntervalMs: config.server.ws_ping_interval,
      verify: (req) => upgrades.verify(req),
    }),
  );

  const live = configService.get().server;
  const port = options.port ?? live.port;
  await app.listen({ port, host: live.host });
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
      await app.close();
    },
  };
}
