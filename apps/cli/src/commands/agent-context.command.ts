import { Command } from 'commander';
import { INestApplicationContext } from '@nestjs/common';
import { BootstrapFiles, describePrompt, SkillCatalog, SkillReadTool, SystemPromptBuilder } from '@nestclaw/agent';
import { ConfigService } from '@nestclaw/config';
import { ToolRegistry } from '@nestclaw/tool';
import { createCliContext } from '../cli-context';
import { CliModule } from '../cli.module';
import { dim, finish, messageOf, note, out, red, yellow } from '../cli-output';

async function withAgentContext(fn: (app: INestApplicationContext) => Promise<void>): Promise<void> {
  let app: INestApplicationContext | undefined;
  try {
    app = await createCliContext(CliModule.forAgentContext());
    const tools = app.get(ToolRegistry);
    tools.register(new SkillReadTool(app.get(SkillCatalog)));
    await fn(app);
    finish(0);
  } catch (e) {
    note(red(`✖ ${messageOf(e)}`));
    finish(1);
  } finally {
    await app?.close().catch(() => undefined);
  }
}

function agentOf(app: INestApplicationContext, agentId: string) {
  const agents = app.get(ConfigService).get().agents;
  const agent = agents[agentId];
  if (!agent) throw new Error(`unknown agent "${agentId}"; configured agents: ${Object.keys(agents).join(', ')}`);
  return agent;
}

const pad = (s: string | number, n: number) => String(s).padStart(n);

/** `nestclaw agent files`: the workspace files in the prompt, what was cut, and what the prompt costs. */
export function agentCommand(): Command {
  const agent = new Command('agent').description("an agent's prompt: workspace files, layers and their token cost");
  agent
    .command('files')
    .description('show the bootstrap files (AGENTS.md, SOUL.md, …) the prompt holds and its token count')
    .option('-a, --agent <id>', 'agent id', 'default')
    .option('--json', 'print the report as JSON')
    .action((opts: { agent: string; json?: boolean }) =>
      withAgentContext(async (app) => {
        const cfg = agentOf(app, opts.agent);
        const tools = app.get(ToolRegistry).definitionsFor(cfg.tools);
        const r = await describePrompt(
          { prompts: app.get(SystemPromptBuilder), bootstrap: app.get(BootstrapFiles), tools },
          opts.agent,
          cfg,
        );
        if (opts.json) return out(JSON.stringify(r, null, 2));
        out(`agent ${r.agentId} (prompt mode ${r.mode}), workspace ${r.workspace}`);
        out(dim(`  ${'file'.padEnd(12)} ${pad('chars', 7)} ${pad('in prompt', 10)} ${pad('tokens', 7)}`));
        for (const f of r.files) {
          const cut = f.refused
            ? yellow(`  not read: ${f.refused}`)
            : f.cutChars
              ? yellow(`  cut ${f.cutChars} chars (head 70 % + tail 20 % kept)`)
              : f.chars
                ? ''
                : dim('  (missing or empty)');
          out(`  ${f.name.padEnd(12)} ${pad(f.chars, 7)} ${pad(f.includedChars, 10)} ${pad(f.tokens, 7)}${cut}`);
        }
        out(`layers: ${r.sections.map((s) => `${s.id} ${s.tokens}`).join(' · ')}`);
        out(`tool definitions: ${r.toolTokens} tokens (${tools.length} tools)`);
        out(`a "hello" request costs ${r.helloTokens} prompt tokens`);
      }),
    );
  return agent;
}

/** `nestclaw skills list`: every skill an agent sees, where it comes from, and why one is unavailable. */
export function skillsCommand(): Command {
  const skills = new Command('skills').description('skills: folders with a SKILL.md (workspace → $NESTCLAW_HOME/skills → built-in)');
  skills
    .command('list')
    .description('list the skills an agent can use (a workspace skill overrides a global one of the same name)')
    .option('-a, --agent <id>', 'agent id', 'default')
    .option('--json', 'print as JSON')
    .action((opts: { agent: string; json?: boolean }) =>
      withAgentContext(async (app) => {
        agentOf(app, opts.agent);
        const list = app.get(SkillCatalog).list(opts.agent);
        if (opts.json) return out(JSON.stringify({ skills: list.map(({ body: _body, ...s }) => s) }, null, 2));
        if (list.length === 0) return out('no skills');
        for (const s of list) {
          const state = s.unavailable ? yellow(`unavailable: ${s.unavailable}`) : 'available';
          out(`${s.name.padEnd(24)} ${s.source.padEnd(9)} ${state}`);
          out(dim(`  ${s.description}${s.path ? `  (${s.path})` : ''}`));
        }
      }),
    );
  return skills;
}
