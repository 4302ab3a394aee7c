import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { actionableHeartbeat, heartbeatTasksIn } from './heartbeat-file';

describe('actionableHeartbeat', () => {
  it('finds nothing to do in headings, comments, empty bullets and ticked items', () => {
    expect(actionableHeartbeat('# Heartbeat\n\n<!-- add tasks below -->\n- \n- [ ]\n- [x] renewed the domain\n')).toBeUndefined();
    expect(actionableHeartbeat('')).toBeUndefined();
  });

  it('keeps open tasks and plain instructions', () => {
    expect(actionableHeartbeat('# Tasks\n- [ ] check the build\n- [x] done\n每天早上提醒我喝水')).toBe(
      '- [ ] check the build\n每天早上提醒我喝水',
    );
  });
});

describe('heartbeatTasksIn', () => {
  let root: string;
  let agentDir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'heartbeat-file-'));
    agentDir = join(root, 'workspace');
    mkdirSync(agentDir);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reads the tasks of a plain HEARTBEAT.md in the workspace, and nothing when there is none', () => {
    expect(heartbeatTasksIn(agentDir)).toBeUndefined();
    writeFileSync(join(agentDir, 'HEARTBEAT.md'), '- [ ] 检查构建\n');
    expect(heartbeatTasksIn(agentDir)).toBe('- [ ] 检查构建');
  });

  it('never follows a link out of the workspace (a secret file is not sent to the model)', () => {
    writeFileSync(join(root, 'config.yaml'), 'api_key: sk-secret\n');
    symlinkSync(join(root, 'config.yaml'), join(agentDir, 'HEARTBEAT.md'));
    expect(heartbeatTasksIn(agentDir)).toBeUndefined();
  });

  it('does not block on a FIFO', () => {
    execFileSync('mkfifo', [join(agentDir, 'HEARTBEAT.md')]);
    expect(heartbeatTasksIn(agentDir)).toBeUndefined();
  });
});
