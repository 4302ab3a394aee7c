import type { IncomingMessage } from 'node:http';
import { isSafeMethod, originAllowed } from './request-origin';

const request = (headers: Record<string, string>, encrypted = false) => ({ headers, socket: { encrypted } }) as unknown as IncomingMessage;

describe('the origin check for cookie-authenticated requests', () => {
  it("accepts the gateway's own origin: the connection's scheme and the Host header, in any case", () => {
    expect(originAllowed(request({ host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' }), [], false)).toBe(true);
    expect(originAllowed(request({ host: 'Nestclaw.Example', origin: 'https://nestclaw.example' }, true), [], false)).toBe(true);
  });

  it('refuses another site, another port, another scheme, "null" and a missing Origin', () => {
    const host = { host: '127.0.0.1:3000' };
    expect(originAllowed(request({ ...host, origin: 'https://evil.example' }), [], false)).toBe(false);
    expect(originAllowed(request({ ...host, origin: 'http://127.0.0.1:3001' }), [], false)).toBe(false);
    expect(originAllowed(request({ ...host, origin: 'https://127.0.0.1:3000' }), [], false)).toBe(false);
    expect(originAllowed(request({ ...host, origin: 'null' }), [], false)).toBe(false);
    expect(originAllowed(request(host), [], false)).toBe(false);
  });

  it('takes https for the own origin behind a TLS proxy when secure_cookie is set', () => {
    expect(originAllowed(request({ host: 'nestclaw.example', origin: 'https://nestclaw.example' }), [], true)).toBe(true);
  });

  it('accepts exactly the listed extra origins', () => {
    const allowed = ['https://ui.example:8443'];
    expect(originAllowed(request({ host: '10.0.0.5:3000', origin: 'https://ui.example:8443' }), allowed, false)).toBe(true);
    expect(originAllowed(request({ host: '10.0.0.5:3000', origin: 'https://ui.example' }), allowed, false)).toBe(false);
    expect(originAllowed(request({ origin: 'https://ui.example:8443' }), allowed, false)).toBe(true);
  });

  it('treats only GET, HEAD and OPTIONS as safe', () => {
    expect(['GET', 'HEAD', 'OPTIONS'].map(isSafeMethod)).toEqual([true, true, true]);
    expect(['POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND'].map(isSafeMethod)).toEqual([false, false, false, false, false]);
  });
});
