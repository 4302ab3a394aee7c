import { Injectable, Logger, Module, OnModuleInit } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as loader from './config.loader';
import { ConfigModule } from './config.module';
import { HotSection, NestclawConfig } from './config.schema';
import { ConfigService } from './config.service';
import { Reconfigurable } from './reconfigurable';

@Injectable()
class PromptHolder implements Reconfigurable, OnModuleInit {
  calls: { prompt: string; changed: readonly HotSection[] }[] = [];
  fromFile: number[] = [];
  constructor(private readonly config: ConfigService) {}
  onModuleInit(): void {
    this.config.register(this);
    this.config.onFileChange((c) => void this.fromFile.push(c.server.port));
  }
  reconfigure(config: NestclawConfig, changed: readonly HotSection[]): void {
    this.calls.push({ prompt: config.prompts.system, changed });
  }
}

/** Has a reconfigure method but never registers: must not be called (no duck typing). */
@Injectable()
class Bystander {
  calls = 0;
  reconfigure(): void {
    this.calls++;
  }
}

@Module({ imports: [ConfigModule], providers: [PromptHolder, Bystander] })
class HolderModule {}

describe('ConfigService hot reload', () => {
  const setup = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nestclaw-hot-'));
    const path = join(dir, 'config.yaml');
    writeFileSync(path, 'server: { port: 4000 }\nprompts: { system: "one" }\n');
    const mod = await Test.createTestingModule({
      imports: [ConfigModule.forRoot({ path, env: { NESTCLAW_HOME: dir }, watch: true }), HolderModule],
    }).compile();
    await mod.init();
    return { mod, path, config: mod.get(ConfigService), holder: mod.get(PromptHolder), bystander: mod.get(Bystander) };
  };

  it('calls only components that registered, not every provider with a reconfigure method', async () => {
    const { mod, path, config, holder, bystander } = await setup();
    writeFileSync(path, 'server: { port: 4000 }\nprompts: { system: "two" }\n');
    await config.reload();
    expect(holder.calls).toHaveLength(1);
    expect(bystander.calls).toBe(0);
    await mod.close();
  });

  it('reads and validates the file once per change, however many components listen', async () => {
    const { mod, path, config, holder } = await setup();
    const parse = jest.spyOn(loader, 'loadConfig');
    writeFileSync(path, 'server: { port: 4001 }\nprompts: { system: "two" }\n');
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await config.reload();
    expect(parse).toHaveBeenCalledTimes(1);
    // File listeners see the file as read, static sections included; the running value stays.
    expect(holder.fromFile).toEqual([4001]);
    expect(config.get().server.port).toBe(4000);
    jest.restoreAllMocks();
    await mod.close();
  });

  it('pushes a changed hot section to Reconfigurable components when the file changes', async () => {
    const { mod, path, config, holder } = await setup();
    writeFileSync(path, 'server: { port: 4000 }\nprompts: { system: "two" }\n');
    for (let i = 0; i < 100 && holder.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(holder.calls).toEqual([{ prompt: 'two', changed: ['prompts'] }]);
    expect(config.get().prompts.system).toBe('two');
    await mod.close();
  });

  it('keeps running on the old value of a static section and says a restart is required', async () => {
    const { mod, path, config } = await setup();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    writeFileSync(path, 'server: { port: 4999 }\nprompts: { system: "one" }\n');
    await config.reload();
    expect(config.get().server.port).toBe(4000);
    expect(warn.mock.calls.map((c) => String(c[0])).join('\n')).toContain('restart required');
    warn.mockRestore();
    await mod.close();
  });

  it('applies a new log level without a restart', async () => {
    const { mod, path, config } = await setup();
    const override = jest.spyOn(Logger, 'overrideLogger').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    writeFileSync(path, 'server: { port: 4000 }\nprompts: { system: "one" }\nlog: { level: warn }\n');
    await config.reload();
    expect(override).toHaveBeenCalledWith(['fatal', 'error', 'warn']);
    jest.restoreAllMocks();
    await mod.close();
  });

  it('keeps the running configuration when the new file is invalid', async () => {
    const { mod, path, config, holder } = await setup();
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    writeFileSync(path, 'server: { port: "nope" }\nprompts: { system: "three" }\n');
    await config.reload();
    expect(config.get().prompts.system).toBe('one');
    expect(holder.calls).toEqual([]);
    expect(error).toHaveBeenCalled();
    error.mockRestore();
    await mod.close();
  });
});
