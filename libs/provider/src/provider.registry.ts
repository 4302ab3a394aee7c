import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ConfigService, HotSection, ModelConfig, NestclawConfig, Reconfigurable } from '@nestclaw/config';
import { EmbeddingProvider } from './embedding/embedding-provider.port';
import { ModelProvider } from './model-provider.port';
import { Price, priceFor } from './pricing';
import { createEmbeddingProvider, createProvider, isLocalProvider } from './provider.factory';

export interface RegisteredModel {
  /** The name used in config (`models.<name>`). */
  name: string;
  kind: 'chat' | 'embedding';
  /** The chat adapter (for embedding models it only serves reachability probes). */
  provider: ModelProvider;
  /** Present for `kind: embedding` models. */
  embedder?: EmbeddingProvider;
  config: ModelConfig;
  price: Price | undefined;
  keySet: boolean;
  /** Local backends (Ollama, vLLM, LM Studio, 127.0.0.1) work without a key. */
  keyRequired: boolean;
}

/** Builds a model adapter for a `models.<name>` entry whose provider is `plugin:<id>` (a plugin's). */
export type ProviderKindFactory = (cfg: ModelConfig) => ModelProvider;

export interface BrokenModel {
  name: string;
  error: string;
}

/** Builds one adapter per configured model (chat and embedding); rebuilt when `models` changes. */
@Injectable()
export class ProviderRegistry implements Reconfigurable, OnModuleInit {
  private readonly logger = new Logger('Providers');
  private models = new Map<string, RegisteredModel>();
  private broken: BrokenModel[] = [];
  /** Provider kinds plugins added (`plugin:<id>`), docs/plugins.md. */
  private readonly pluginKinds = new Map<string, ProviderKindFactory>();

  constructor(private readonly config: ConfigService) {
    this.build(config.get());
  }

  onModuleInit(): void {
    this.config.register(this);
  }

  reconfigure(config: NestclawConfig, changed: readonly HotSection[]): void {
    if (changed.includes('models')) this.build(config);
  }

  /**
   * Adds a model provider kind (a trusted plugin's `plugin:<id>`) and rebuilds the models, so the
   * entries that name it become usable; the ReliableProvider reaches them like any other model.
   */
  registerKind(kind: string, factory: ProviderKindFactory): void {
    if (!kind.startsWith('plugin:')) throw new Error(`a plugin's provider kind starts with "plugin:" (got "${kind}")`);
    this.pluginKinds.set(kind, factory);
    this.build(this.config.get());
  }

  /** Removes a plugin's provider kind (the plugin was disabled): models that name it become misconfigured. */
  unregisterKind(kind: string): void {
    if (this.pluginKinds.delete(kind)) this.build(this.config.get());
  }

  private create(cfg: ModelConfig): ModelProvider {
    if (!cfg.provider.startsWith('plugin:')) return createProvider(cfg);
    const factory = this.pluginKinds.get(cfg.provider);
    if (!factory) throw new Error(`provider "${cfg.provider}" is added by a plugin that is not loaded (see nestclaw plugins list)`);
    return factory(cfg);
  }

  private build(config: NestclawConfig): void {
    const models = new Map<string, RegisteredModel>();
    const broken: BrokenModel[] = [];
    for (const [name, cfg] of Object.entries(config.models)) {
      try {
        models.set(name, {
          name,
          kind: cfg.kind,
          provider: this.create(cfg),
          embedder: cfg.kind === 'embedding' ? createEmbeddingProvider(cfg) : undefined,
          config: cfg,
          price: priceFor(cfg.model, cfg.price),
          keySet: !!cfg.api_key,
          keyRequired: !isLocalProvider(cfg) && !cfg.provider.startsWith('plugin:'),
        });
      } catch (e) {
        broken.push({ name, error: (e as Error).message });
        this.logger.error(`model "${name}" is not usable: ${(e as Error).message}`);
      }
    }
    this.models = models;
    this.broken = broken;
  }

  /** A chat model by config name (embedding models are never part of a chat chain). */
  get(name: string): RegisteredModel | undefined {
    const m = this.models.get(name);
    return m?.kind === 'chat' ? m : undefined;
  }

  /** An embedding model by config name, for the memory index. */
  embedding(name: string): (RegisteredModel & { embedder: EmbeddingProvider }) | undefined {
    const m = this.models.get(name);
    return m?.embedder ? (m as RegisteredModel & { embedder: EmbeddingProvider }) : undefined;
  }

  /** Every usable model, chat and embedding, in config order. */
  all(): RegisteredModel[] {
    return [...this.models.values()];
  }

  misconfigured(): BrokenModel[] {
    return this.broken;
  }
}
