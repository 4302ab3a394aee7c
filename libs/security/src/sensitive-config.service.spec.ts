import { Logger, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as config from '@nestclaw/config';
import { SensitiveConfigService } from './sensitive-config.service';

@Module({ imports: [config.ConfigModule], providers: [SensitiveConfigService] })
class SettingsModule {}

describe('SensitiveConfigService', () => {
  it('takes a changed allowlist from a ConfigService reload (no watcher of its own) and holds it for confirmation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nestclaw-sensitive-'));
    const path = join(dir, 'config.yaml');
    writeFileSync(path, 'channels: { telegram: { allow_from: ["1"] } }\n');
    const mod = await Test.createTestingModule({
      imports: [config.ConfigModule.forRoot({ path, env: { NESTCLAW_HOME: dir }, watch: false }), SettingsModule],
    }).compile();
    await mod.init();
    const settings = mod.get(SensitiveConfigService);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true);

    writeFileSync(path, 'channels: { telegram: { allow_from: ["1", "2"] } }\n');
    await mod.get(config.ConfigService).reload();

    expect(settings.pendingChange()?.changed).toEqual(['channels.telegram.allow_from']);
    expect(settings.channel('telegram').allow_from).toEqual(['1']);
    jest.restoreAllMocks();
    await mod.close();
  });
});
