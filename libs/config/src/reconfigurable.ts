import type { HotSection, NestclawConfig } from './config.schema';

/**
 * Implemented by components that can take new hot config (models, providers, agents, prompts)
 * without a restart. ConfigService finds every provider that has this method and calls it after
 * a valid file change.
 */
export interface Reconfigurable {
  reconfigure(config: NestclawConfig, changed: readonly HotSection[]): void | Promise<void>;
}

export function isReconfigurable(x: unknown): x is Reconfigurable {
  return !!x && typeof (x as Reconfigurable).reconfigure === 'function';
}
