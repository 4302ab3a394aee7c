import type { DoctorReport } from '@nestclaw/doctor';
import { clientToken, runningGatewayBase } from './gateway-endpoint';

/** Long enough for the gateway to probe every model (its /doctor checks reachability). */
const DOCTOR_TIMEOUT_MS = 20_000;
const HEALTH_TIMEOUT_MS = 1_500;

/**
 * The running gateway's `GET /doctor`: at `--url`, else the gateway started from this
 * `$NESTCLAW_HOME` (gateway.json), else the configured server.host/port. Says why when none answers
 * or it refuses, so the caller can fall back to local checks and tell the user.
 */
export async function askGateway(explicit?: string): Promise<{ report: DoctorReport; url: string } | { tried: string }> {
  const base = runningGatewayBase(explicit);
  if (!base) return { tried: 'none found (no gateway.json and the config file is invalid)' };
  try {
    await fetch(`${base}/health`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
  } catch {
    return { tried: `none answered at ${base}` };
  }
  const { token, tried } = clientToken();
  if (!token) return { tried: `${base} answered, but no token to ask it with (${tried})` };
  try {
    const res = await fetch(`${base}/doctor`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(DOCTOR_TIMEOUT_MS),
    });
    if (!res.ok) return { tried: `${base} refused /doctor with HTTP ${res.status}` };
    return { report: (await res.json()) as DoctorReport, url: base };
  } catch (e) {
    return { tried: `${base}/doctor failed: ${(e as Error).message}` };
  }
}
