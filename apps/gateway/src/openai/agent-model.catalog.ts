import { Injectable } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { ConfigService } from '@nestclaw/config';
import { MODEL_ID_PATTERN } from './chat-completions.dto';

/** One entry of OpenAI's model list. */
export interface OpenAiModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'nestclaw';
}

/**
 * The agents as OpenAI models, for clients that list models before they chat: `nestclaw` (the
 * default routing) and `nestclaw/<agentId>` for each configured agent, exactly the ids
 * `POST /v1/chat/completions` accepts. Read from the live config, so a hot-reloaded agent shows up.
 */
@Injectable()
export class AgentModelCatalog {
  /** OpenAI's `created` (Unix seconds): these models exist since this gateway started. */
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(private readonly config: ConfigService) {}

  list(): OpenAiModel[] {
    const ids = ['nestclaw', ...Object.keys(this.config.get().agents).map((agentId) => `nestclaw/${agentId}`)];
    // An agent id the completions route cannot address (a space, a non-ASCII letter) is not offered.
    return ids
      .filter((id) => MODEL_ID_PATTERN.test(id))
      .map((id) => ({ id, object: 'model', created: this.created, owned_by: 'nestclaw' }));
  }

  find(id: string): OpenAiModel {
    const models = this.list();
    const model = models.find((m) => m.id === id);
    if (!model) throw new NestclawError('not_found', `Unknown model "${id}"; available: ${models.map((m) => m.id).join(', ')}`);
    return model;
  }
}
