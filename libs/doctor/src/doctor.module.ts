import { Module } from '@nestjs/common';
import { ProviderModule } from '@nestclaw/provider';
import { ToolModule } from '@nestclaw/tool';
import { DoctorService } from './doctor.service';

@Module({ imports: [ProviderModule, ToolModule], providers: [DoctorService], exports: [DoctorService] })
export class DoctorModule {}
