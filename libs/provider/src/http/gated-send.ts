import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import type { CallGate } from '../llm-call.record';

/** What a model request carries to `nodeFetch` besides fetch's own options (through an SDK's `fetchOptions`). */
export interface GatedInit {
  /** Hold the request until its ledger row is written (CallLedger). */
  gate?: CallGate;
  /** Header that carries the row id to the provider (`nestclaw-call-<id>`), where its API takes one. */
  idHeader?: string;
}

/** Fetch options for an SDK call: the gate rides along to `nodeFetch`, which takes it out again. */
export function gatedFetchOptions(gate: CallGate | undefined, idHeader?: string): SdkFetchOptions {
  return (gate ? { gate, ...(idHeader ? { idHeader } : {}) } : {}) as SdkFetchOptions;
}

/** What the SDKs accept as `fetchOptions` (everything but what they set themselves). */
type SdkFetchOptions = Omit<RequestInit, 'headers' | 'signal' | 'body' | 'method'>;

/** Resolves once the request has a socket that can take bytes at once: reused, or newly connected (TLS included). */
function connected(req: ClientRequest): Promise<void> {
  return new Promise((resolve, reject) => {
    // Taken off once connected: every request closes in the end, and an Error built then (its stack
    // captured for a promise long settled) cost ~0.6 % of a turn's CPU.
    const closed = () => fail(new Error('request closed before it was sent'));
    const fail = (e: Error) => {
      done();
      reject(e);
    };
    const done = () => {
      req.off('error', fail);
      req.off('close', closed);
    };
    req.once('error', fail);
    req.once('close', closed);
    req.once('socket', (socket: Socket) => {
      const ready = () => {
        done();
        resolve();
      };
      if (!socket.connecting) return ready();
      socket.once('encrypted' in socket ? 'secureConnect' : 'connect', ready);
    });
  });
}

/**
 * Writes a prepared request so that a kill leaves both its ledger row and its bytes on the wire, or
 * neither. Everything that takes time (the SDK building the request, a free socket, TCP and TLS
 * set-up, the row's INSERT) happens first, with the row uncommitted. Then, in one synchronous step,
 * the request (head and body, already encoded) is laid into its corked socket, COMMIT is written to
 * the database connection, and the socket is uncorked: between the two writes there is only the
 * uncork. COMMIT goes first, so the only case left is a row for a request that never left.
 */
export async function sendGated(
  req: ClientRequest,
  body: string | Uint8Array | undefined,
  init: GatedInit & { gate: CallGate },
): Promise<void> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  await connected(req);
  const call = await init.gate();
  const socket = req.socket;
  if (req.destroyed || !socket) {
    // Aborted while the row was written: nothing left, so nothing is recorded.
    await call.discard().catch(() => undefined);
    return;
  }
  if (init.idHeader) req.setHeader(init.idHeader, `nestclaw-call-${call.id}`);
  socket.cork();
  if (bytes) req.write(bytes);
  let committed: Promise<void>;
  try {
    committed = call.commit();
  } catch (e) {
    // Destroyed while corked: the request's bytes are dropped, never written.
    req.destroy(e as Error);
    throw e;
  }
  socket.uncork();
  req.end();
  // The row is gone (the database failed in that instant): stop the request rather than leave it unbilled.
  await committed.catch((e: unknown) => req.destroy(e instanceof Error ? e : new Error(String(e))));
}
