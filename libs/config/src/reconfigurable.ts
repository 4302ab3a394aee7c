import type { HotSection, NestclawConfig } from './config.schema';

/**
 * Implemented by components that can take new hot config (models, providers, agents, prompts, log)
 * without a restart. A component says so explicitly: `config.register(this)` (in `onModuleInit`),
 * and ConfigService calls it after each valid file change that touches a hot section.
 */
export interface Reconfigurable {
  reconfigure(config: NestclawConfig, changed: readonly HotSection[]): void | Promise<void>;
}

/**
 * Called with the file as read after every valid change, static sections included (not yet in force):
 * for components that decide themselves when such a change applies (security settings wait for the owner).
 */
export type FileChangeListener = (fromFile: NestclawConfig) => void | Promise<void>;
