// Imported first by main.ts: the OpenTelemetry SDK must patch `pg` before anything loads it.
import { startTracing } from '@nestclaw/observability';

startTracing(process.env, process.env.npm_package_version);
