import { Injectable, Logger } from '@nestjs/common';
import { ConfigService, HotSection, ModelConfig, NestclawConfig, Reconfigurable } from '@nestclaw/config';
import { ModelProvider } from './model-provider.port';
import { OpenAiCompatibleProvider } from './openai/openai-compatible.provider';
import { Price, priceFor } from './pricing';

/** OpenAI-compatible services that differ only in their default base URL. */
const OPENAI_COMPATIBLE_PRESETS: Record<string, string> = {
  openai: 'https://api.openai.com/v1',
  deepseek: 'https://api.deepseek.com/v1',
  moonshot: 'https://api.moonshot.cn/v1',
  zhipu: 'https://open.bigmodel.cn/api/paas/v4',
  qwen: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
  groq: 'https://api.groq.com/openai/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  vllm: 'http://127.0.0.1:8000/v1',
  lmstudio: 'http://127.0.0.1:1234/v1',
  'openai-compatible': '',
};

export interface RegisteredModel {
  /** The name used in config (`models.<name>`). */
  name: string;
  provider: ModelProvider;
  config: ModelConfig;
  price: Price | undefined;
  keySet: boolean;
}

export interface BrokenModel {
  name: string;
  error: string;
}

/** Builds one ModelProvider per configured model; rebuilt when `models` changes. */
@Injectable()
export class ProviderRegistry implements Reconfigurable {
  private readonly logger = new Logger('Providers');
  private models = new Map<string, RegisteredModel>();
  private broken: BrokenModel[] = [];

  constructor(config: ConfigService) {
    this.build(config.get());
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
          provider: createProvider(cfg),
          config: cfg,
          price: priceFor(cfg.model, cfg.price),
          keySet: !!cfg.api_key,
        });
      } catch (e) {
        broken.push({ name, error: (e as Error).message });
        this.logger.error(`model "${name}" is not usable: ${(e as Error).message}`);
      }
    }
    this.models = models;
    this.broken = broken;
  }

  get(name: string): RegisteredModel | undefined {
    return this.models.get(name);
  }

  all(): RegisteredModel[] {
    return [...this.models.values()];
  }

  misconfigured(): BrokenModel[] {
    return this.broken;
  }
}

export function createProvider(cfg: ModelConfig): ModelProvider {
  if (!(cfg.provider in OPENAI_COMPATIBLE_PRESETS)) {
    throw new Error(`unknown provider "${cfg.provider}" (known: ${Object.keys(OPENAI_COMPATIBLE_PRESETS).join(', ')})`);
  }
  const baseUrl = cfg.base_url || OPENAI_COMPATIBLE_PRESETS[cfg.provider];
  if (!baseUrl) throw new Error('base_url is required for provider "openai-compatible"');
  return Object.assign(
    new OpenAiCompatibleProvider({
      baseUrl,
      apiKey: cfg.api_key,
      model: cfg.model,
      temperature: cfg.temperature,
      maxTokens: cfg.max_tokens,
    }),
    {
      kind: cfg.provider,
    },
  );
}
