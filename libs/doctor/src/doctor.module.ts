import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestclaw/config';
import { DbModule } from '@nestclaw/db';
import { ProviderModule } from '@nestclaw/provider';
import { ToolModule } from '@nestclaw/tool';
import { ClusterCheck } from './cluster.check';
import { DoctorService } from './doctor.service';

@Module({
  imports: [ConfigModule, DbModule, ProviderModule, ToolModule],
  providers: [DoctorService, ClusterCheck],
  exports: [DoctorService],
})
export class DoctorModule {}
