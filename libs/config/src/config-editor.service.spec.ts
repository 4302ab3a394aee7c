import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigEditor } from './config-editor.service';
import { ConfigService } from './config.service';

const FILE = `# the owner's comment stays
models:
  default:
    provider: openai-compatible
    base_url: http://127.0.0.1:9/v1
    api_key: sk-literal-secret-123
    model: small
  other:
    provider: openai-compatible
    base_url: http://127.0.0.1:9/v1
    api_key: \${OTHER_KEY}
    model: other
prompts:
  system: 你好
server:
  port: 4100
`;

function setup(text: string | null = FILE, env: NodeJS.ProcessEnv = { OTHER_KEY: 'sk-from-env-456' }) {
  const dir = mkdtempSync(join(tmpdir(), 'nestclaw-editor-'));
  const path = join(dir, 'config.yaml');
  if (text !== null) writeFileSync(path, text, { mode: 0o640 });
  const config = new ConfigService({ path, home: dir, env, watch: false });
  return { path, config, editor: new ConfigEditor(config) };
}

const sectionOf = (view: ReturnType<ConfigEditor['view']>, name: string) => view.sections.find((s) => s.name === name)!;

describe('ConfigEditor', () => {
  it('shows every section in force with secrets redacted, and the file as written with literal secrets masked', () => {
    const { editor } = setup();
    const view = editor.view();
    const models = sectionOf(view, 'models');
    expect(models.hot).toBe(true);
    expect(JSON.stringify(view)).not.toContain('sk-literal-secret-123');
    expect(JSON.stringify(view)).not.toContain('sk-from-env-456');
    expect(models.file).toMatchObject({ default: { api_key: '[redacted]' }, other: { api_key: '${OTHER_KEY}' } });
    expect(models.effective).toMatchObject({ default: { api_key: '[redacted]' }, other: { api_key: '[redacted]' } });
    expect(sectionOf(view, 'server')).toMatchObject({ hot: false, file: { port: 4100 } });
    expect(sectionOf(view, 'channels')).toMatchObject({ hot: false, confirmable: true });
    expect(sectionOf(view, 'log').file).toBeUndefined();
  });

  it('previews an edit as the changes in force, writes nothing, and a masked secret keeps its value', () => {
    const { editor, path, config } = setup();
    const { version } = editor.view();
    const yaml = `default:
  provider: openai-compatible
  base_url: http://127.0.0.1:9/v1
  api_key: "[redacted]"
  model: bigger
other:
  provider: openai-compatible
  base_url: http://127.0.0.1:9/v1
  api_key: sk-new-other-789
  model: other
`;
    const edit = editor.preview('models', yaml, version);
    expect(edit.changes).toEqual([
      { path: 'models.default.model', before: 'small', after: 'bigger' },
      { path: 'models.other.api_key', before: '[redacted]', after: '[redacted]', secretChanged: true },
    ]);
    expect(readFileSync(path, 'utf8')).toBe(FILE);
    expect(config.get().models.default.model).toBe('small');
  });

  it('saves an edit to the file (comments, other sections and permissions kept) and applies it', async () => {
    const { editor, path, config } = setup();
    const before = editor.view();
    const edit = await editor.apply('prompts', 'system: 你是一个乐于助人的助手\n', before.version);
    expect(edit.changes).toEqual([{ path: 'prompts.system', before: '你好', after: '你是一个乐于助人的助手' }]);
    expect(config.get().prompts.system).toBe('你是一个乐于助人的助手');
    const text = readFileSync(path, 'utf8');
    expect(text).toContain("# the owner's comment stays");
    expect(text).toContain('api_key: sk-literal-secret-123');
    expect(text).toContain('${OTHER_KEY}');
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(edit.version).toBe(editor.view().version);
    expect(edit.version).not.toBe(before.version);
  });

  it('refuses a stale version, a restart-only section, an unknown one, bad YAML, a schema error and a mask with nothing behind it', async () => {
    const { editor, path } = setup();
    const { version } = editor.view();
    await expect(editor.apply('prompts', 'system: x\n', 'stale')).rejects.toMatchObject({ code: 'conflict' });
    expect(() => editor.preview('server', 'port: 1\n', version)).toThrow(
      expect.objectContaining({ code: 'invalid_request', message: expect.stringContaining('restart') }),
    );
    expect(() => editor.preview('nope', 'x: 1\n', version)).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(() => editor.preview('prompts', 'system: [unclosed\n', version)).toThrow(expect.objectContaining({ code: 'config_invalid' }));
    expect(() => editor.preview('log', 'level: loud\n', version)).toThrow(
      expect.objectContaining({ code: 'config_invalid', message: expect.stringContaining('log.level') }),
    );
    expect(() => editor.preview('models', 'fresh:\n  provider: openai\n  api_key: "[redacted]"\n  model: m\n', version)).toThrow(
      expect.objectContaining({ code: 'config_invalid', message: expect.stringContaining('models.fresh.api_key') }),
    );
    expect(readFileSync(path, 'utf8')).toBe(FILE);
  });

  it('creates the file when there is none, private to its owner', async () => {
    const { editor, path, config } = setup(null, {});
    const edit = await editor.apply('log', 'level: debug\n', editor.view().version);
    expect(edit.changes).toEqual([{ path: 'log.level', before: 'log', after: 'debug' }]);
    expect(config.get().log.level).toBe('debug');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('says what to do when the file cannot be written, and leaves it as it was', async () => {
    const { editor, path } = setup();
    // The save's temporary file cannot be created (a directory holds its name): refused even for root.
    mkdirSync(`${path}.${process.pid}.saving`);
    await expect(editor.apply('prompts', 'system: x\n', editor.view().version)).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('read-only'),
    });
    expect(readFileSync(path, 'utf8')).toBe(FILE);
  });
});
