import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DoctorModule } from '@nestclaw/doctor';
import { MemoryModule } from '@nestclaw/memory';
import { ProviderModule } from '@nestclaw/provider';
import { ToolModule } from '@nestclaw/tool';
import { PluginService } from './plugin.service';

/** Plugins for the gateway (docs/plugins.md); the CLI only lists them (`listPlugins`). */
@Module({
  imports: [ConfigModule, ToolModule, ProviderModule, DoctorModule, MemoryModule],
  providers: [PluginService],
  exports: [PluginService],
})
export class PluginModule {}
