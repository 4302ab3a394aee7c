import type * as AcpSdk from '@agentclientprotocol/sdk';

let loaded: Promise<typeof AcpSdk> | undefined;

/**
 * The Agent Client Protocol SDK, loaded when the first ACP session starts. It is published as ES modules
 * only: the built gateway (CommonJS) requires it, which Node >= 20.19 allows; loading it on first use keeps
 * it out of every start-up and out of test runs that never drive an ACP CLI (Jest's CommonJS runtime
 * cannot require an ES module).
 */
export function loadAcpSdk(): Promise<typeof AcpSdk> {
  return (loaded ??= import('@agentclientprotocol/sdk'));
}
