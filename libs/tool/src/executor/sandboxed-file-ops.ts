import { ToolError } from '../tool.port';
import { SANDBOX_WORKSPACE } from '../workspace/workspace';
import type { DirEntry, ExecRequest, ExecResult, FileRequest } from './tool-executor.port';

type Exec = (req: ExecRequest) => Promise<ExecResult>;

function fail(what: string, r: ExecResult): never {
  const why = r.timedOut ? 'timed out' : r.stderr.trim().split('\n').pop() || `exit code ${r.exitCode}`;
  throw new ToolError(`${what}: ${why.replace(/^[a-z]+: /, '')}`);
}

/** File operations for sandboxed executors: run as small commands inside the same boundary. */
export class SandboxedFileOps {
  constructor(
    private readonly exec: Exec,
    /** Where the workspace is, as the command sees it. */
    private readonly root: (f: FileRequest) => string = () => SANDBOX_WORKSPACE,
  ) {}

  private at(f: FileRequest, rel: string): string {
    return rel ? `${this.root(f)}/${rel}` : this.root(f);
  }

  private request(f: FileRequest, argv: string[], maxOutputBytes: number, stdin?: string): ExecRequest {
    return { ...f, argv, stdin, network: false, maxOutputBytes };
  }

  async readFile(f: FileRequest, rel: string, maxBytes: number): Promise<string> {
    const r = await this.exec(this.request(f, ['head', '-c', String(maxBytes), '--', this.at(f, rel)], maxBytes));
    if (r.exitCode !== 0) fail(`cannot read ${rel}`, r);
    return r.stdout;
  }

  async writeFile(f: FileRequest, rel: string, content: string, append: boolean): Promise<void> {
    const script = `mkdir -p -- "$(dirname -- "$1")" && cat ${append ? '>>' : '>'} "$1"`;
    const r = await this.exec(this.request(f, ['/bin/sh', '-c', script, 'sh', this.at(f, rel)], 4096, content));
    if (r.exitCode !== 0) fail(`cannot write ${rel}`, r);
  }

  async listDir(f: FileRequest, rel: string): Promise<DirEntry[]> {
    const argv = ['find', this.at(f, rel), '-mindepth', '1', '-maxdepth', '1', '-printf', '%y\\t%s\\t%f\\n'];
    const r = await this.exec(this.request(f, argv, 1 << 20));
    if (r.exitCode !== 0) fail(`cannot list ${rel || '.'}`, r);
    return r.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [y, size, ...name] = line.split('\t');
        const type = y === 'f' ? 'file' : y === 'd' ? 'dir' : y === 'l' ? 'symlink' : 'other';
        return { name: name.join('\t'), type, size: Number(size) } as DirEntry;
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}
