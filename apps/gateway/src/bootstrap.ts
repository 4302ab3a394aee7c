import 'reflect-metadata';
import { LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Server } from 'node:http';
import { loadConfig, defaultConfigPath, ConfigService, logLevelsFor } from '@nestclaw/config';
import { telemetry } from '@nestclaw/observability';
import { GatewayModule } from './gateway.module';
import { gatewayLogger } from './observability/gateway-logger';
import { ChatWsGateway } from './ws/chat.ws-gateway';

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
  // Before Nest builds any provider, so breaker and pool gauges can register from constructors.
  telemetry.configure({
    metrics: config.observability.metrics.enabled,
    captureContent: config.observability.tracing.capture_content,
    version: process.env.npm_package_version ?? '0.1.0',
  });
  telemetry.preinitialize(Object.keys(config.agents), Object.keys(config.models));

  const adapter = new FastifyAdapter({ bodyLimit: config.server.body_limit, trustProxy: false });
  const app = await NestFactory.create<NestFastifyApplication>(
    GatewayModule.forRoot({ path: configPath, env, watch: options.watchConfig, loaded: config }),
    adapter,
    {
      logger: gatewayLogger(config, env, logLevels),
      bufferLogs: false,
    },
  );
  app.enableShutdownHooks();
  app.get(ChatWsGateway).attach(app.getHttpServer() as Server, config.server.body_limit);

  const live = app.get(ConfigService).get().server;
  const port = options.port ?? live.port;
  await app.listen({ port, host: live.host });
  const address = app.getHttpServer().address() as { port: number };
  const host = live.host.includes(':') ? `[${live.host}]` : live.host;
  return {
    app,
    port: address.port,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`,
    close: () => app.close(),
  };
}
