import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { DoctorModule } from '@nestclaw/doctor';
import { BootstrapFiles, SkillCatalog, SystemPromptBuilder } from '@nestclaw/agent';
import { ToolRegistry, WorkspaceLocator } from '@nestclaw/tool';

/**
 * Composition roots for the CLI commands that need Nest: the same lib modules the gateway uses,
 * minus transport. Config is never watched here: a command is short-lived.
 */
@Module({})
export class CliModule {
  /** `nestclaw migrate`: config + database, migrating while connecting. */
  static forMigrate(): DynamicModule {
    return { module: CliModule, imports: [ConfigModule.forRoot({ watch: false }), DbModule.forRoot({ migrate: true }), DbModule] };
  }

  /** `nestclaw doctor`: the checks behind `GET /doctor`; never migrates, so it reports pending ones. */
  static forDoctor(): DynamicModule {
    return {
      module: CliModule,
      imports: [ConfigModule.forRoot({ watch: false }), DbModule.forRoot({ migrate: false }), DoctorModule],
    };
  }

  /** `nestclaw agent files`, `nestclaw skills list`: config and the agent's workspace; no database. */
  static forAgentContext(): DynamicModule {
    return {
      module: CliModule,
      imports: [ConfigModule.forRoot({ watch: false }), ConfigModule],
      providers: [WorkspaceLocator, ToolRegistry, BootstrapFiles, SkillCatalog, SystemPromptBuilder],
    };
  }
}
