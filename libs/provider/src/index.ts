export * from './model-provider.port';
export * from './provider.errors';
export * from './pricing';
export * from './provider.registry';
export * from './reliable.provider';
export * from './provider.module';
export { OpenAiCompatibleProvider } from './openai/openai-compatible.provider';
