import { Injectable, OnModuleInit } from '@nestjs/common';
import { DoctorService, mcpChecks, memoryChecks } from '@nestclaw/doctor';
import { McpService } from '@nestclaw/mcp';
import { MemoryStatusService } from '@nestclaw/memory';

/**
 * The doctor's lines for what only the gateway runs: its MCP servers and its memory index (the CLI's
 * `nestclaw doctor` starts neither). Added here, where both are injected, instead of looked up by the doctor.
 */
@Injectable()
export class GatewayDoctorChecks implements OnModuleInit {
  constructor(
    private readonly doctor: DoctorService,
    private readonly memory: MemoryStatusService,
    private readonly mcp: McpService,
  ) {}

  onModuleInit(): void {
    this.doctor.addChecks(() => memoryChecks(() => this.memory.status()));
    this.doctor.addChecks(() => mcpChecks(this.mcp.status()));
  }
}
