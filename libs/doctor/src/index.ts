export * from './doctor.service';
export * from './doctor.module';
export { mcpChecks } from './mcp.check';
export { memoryChecks } from './memory.check';
