import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { deployDir } from '../../support/deploy-queries';
import { describeWithHostTools } from '../../support/host-tools';

/**
 * `docker compose --profile ha up`: three gateways behind HAProxy's official image, checked without a
 * Docker engine: the compose services, and the balancer's config validated by a real haproxy.
 */
interface Service {
  image?: string;
  profiles?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
}
const root = join(deployDir(), '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service> };
const configFile = join(deployDir(), 'haproxy', 'haproxy.cfg');
const gateways = ['nestclaw', 'nestclaw-2', 'nestclaw-3'];

describe('docker compose --profile ha', () => {
  it('runs three gateways on the one database and home, behind haproxy:2.8 on loopback', () => {
    for (const name of gateways) {
      const s = compose.services[name];
      expect(s.environment?.DATABASE_URL).toBe(compose.services.nestclaw.environment?.DATABASE_URL);
      expect(s.volumes).toContain('nestclaw-home:/data');
    }
    expect(compose.services['nestclaw-2'].profiles).toEqual(['ha']);
    const lb = compose.services.haproxy;
    expect(lb).toMatchObject({ image: 'haproxy:2.8', profiles: ['ha'] });
    expect(lb.volumes).toContain('./deploy/haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
    expect(lb.ports).toEqual(['127.0.0.1:3080:8080']);
  });

  it('balances over every gateway service, health-checked on /health/ready', () => {
    const cfg = readFileSync(configFile, 'utf8');
    for (const name of gateways) expect(cfg).toMatch(new RegExp(`^\\s*server \\S+ ${name}:3000 check$`, 'm'));
    expect(cfg).toMatch(/option httpchk GET \/health\/ready/);
    expect(cfg).toMatch(/balance roundrobin/);
  });
});

describeWithHostTools(['haproxy'], 'deploy/haproxy/haproxy.cfg', ({ haproxy }) => {
  it('is a configuration haproxy accepts', () => {
    // Outside Docker the service names do not resolve: `init-addr none` lets haproxy accept them anyway.
    expect(execFileSync(haproxy!, ['-c', '-f', configFile], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })).toMatch(
      /Configuration file is valid/,
    );
  });
});
