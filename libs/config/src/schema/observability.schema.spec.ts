import { observabilitySchema } from './observability.schema';

describe('observability.grafana_url', () => {
  it('is absent unless set, and keeps an http(s) URL as written', () => {
    expect(observabilitySchema.parse({}).grafana_url).toBeUndefined();
    expect(observabilitySchema.parse({ grafana_url: 'https://grafana.example.com/d/nestclaw' }).grafana_url).toBe(
      'https://grafana.example.com/d/nestclaw',
    );
  });

  it('refuses another scheme, a non-URL and a URL carrying credentials', () => {
    for (const bad of ['javascript:alert(1)', 'ftp://grafana.example.com', 'grafana', 'https://admin:secret@grafana.example.com']) {
      expect(observabilitySchema.safeParse({ grafana_url: bad }).success).toBe(false);
    }
  });
});
