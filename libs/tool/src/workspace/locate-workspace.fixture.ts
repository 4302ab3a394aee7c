/**
 * Test fixture for workspace.locator.spec: locates the default agent's workspace under `home` and
 * reports the home's mode before and after and the workspace's owner. The spec calls it in-process,
 * and, when it runs as root, as a script in a child process under an unprivileged uid:
 *   node -r ./scripts/ts-register.js -r tsconfig-paths/register <this file> <home>
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { configSchema, ConfigService } from '@nestclaw/config';
import { WorkspaceLocator } from './workspace.locator';

export interface Located {
  modeBefore: number;
  modeAfter: number;
  workspaceUid: number;
}

export function locateWorkspace(home: string): Located {
  const modeBefore = statSync(home).mode;
  new WorkspaceLocator({ home } as ConfigService).forContext(
    { sessionId: 's', turnId: 't', agentId: 'default' },
    configSchema.parse({ agents: { default: {} } }).agents.default,
  );
  return { modeBefore, modeAfter: statSync(home).mode, workspaceUid: statSync(join(home, 'workspaces', 'agents', 'default')).uid };
}

if (require.main === module) process.stdout.write(JSON.stringify(locateWorkspace(process.argv[2])));
