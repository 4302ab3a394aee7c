import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, Server } from 'node:http';
import { ConfigService } from '@nestclaw/config';
import { MetricsService } from '@nestclaw/observability';
import { PrincipalResolver } from '@nestclaw/security';
import { bearerToken } from '../auth/bearer-token';
import { toErrorResponse } from '../errors/error-body';

/**
 * `observability.metrics.listener`: /metrics alone on its own port (default host 127.0.0.1), for a
 * scraper that should not reach the API port. Same rule as the API: owner token or `metrics` scope.
 */
@Injectable()
export class MetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    private readonly config: ConfigService,
    private readonly metrics: MetricsService,
    private readonly principals: PrincipalResolver,
  ) {}

  get port(): number | undefined {
    const a = this.server?.address();
    return a && typeof a === 'object' ? a.port : undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    const listener = this.config.get().observability.metrics.listener;
    if (!listener || !this.metrics.enabled) return;
    const send = (res: import('node:http').ServerResponse, status: number, code: string, message: string) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code, message } }));
    this.server = createServer((req, res) => {
      void (async () => {
        if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics')
          return send(res, 404, 'not_found', 'Only GET /metrics is served here');
        const principal = await this.principals.resolve(bearerToken(req));
        if (!principal) return send(res, 401, 'unauthorized', 'Send "Authorization: Bearer <token>" with the metrics scope');
        if (!principal.scopes.includes('metrics')) return send(res, 403, 'forbidden', 'This token lacks the "metrics" scope');
        const scrape = await this.metrics.scrape();
        res.writeHead(200, { 'content-type': scrape!.contentType }).end(scrape!.body);
      })().catch((e: unknown) => {
        // The same mapping as the API: a database outage is a 503; anything else a 500 with an error id in the log.
        const { status, body } = toErrorResponse(e);
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(listener.port, listener.host, () => resolve());
    });
    this.logger.log(`metrics also on http://${listener.host}:${this.port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
  }
}
