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

  constructor(private readonly config: ConfigService) {
    this.build(config.get());
  }

  onModuleInit(): void {
    this.config.register(this);
  }

  reconfigure(config: NestclawConfig, changed: readonly HotSection[]): void {
    if (changed.includes('models')) this.build(config);
  }

  private build(config: NestclawConfig): void {
    const models = new Map<string, RegisteredModel>();
    const broken: BrokenModel[] = [];
    for (const [name, cfg] of Object.entries(config.models)) {
      try {
        models.set(name, {
          name,
          kind: cfg.kind,
          provider: createProvider(cfg),
          embedder: cfg.kind === 'embedding' ? createEmbeddingProvider(cfg) : undefined,
          config: cfg,
          price: priceFor(cfg.model, cfg.price),
          keySet: !!cfg.api_key,
          keyRequired: !isLocalProvider(cfg),
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
