import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { NestclawError } from '@nestclaw/common';
import { MemoryService, MemoryStatusService, MemoryStore, OWNER_SCOPE, tokenScope } from '@nestclaw/memory';
import { OWNER, Principal } from '@nestclaw/security';
import { CurrentPrincipal } from '../auth/principal.decorator';
import type { z } from 'zod';
import { ZodPipe } from '../http/zod-validation.pipe';
import { listMemorySchema, scopeQuerySchema, searchMemorySchema, storeMemorySchema } from './memory.dto';

/** The caller's own person, or (admin scope only) the one named in `scope`. */
function personFor(principal: Principal, requested: string | undefined): string {
  const own = principal === OWNER ? OWNER_SCOPE : tokenScope(principal.id);
  if (requested === undefined || requested === own) return own;
  if (!principal.scopes.includes('admin'))
    throw new NestclawError('forbidden', "Only a token with the admin scope may use another person's memory");
  return requested;
}

/** Admins read and forget by id whatever the person; everyone else only their own. */
const byIdScope = (principal: Principal) => (principal.scopes.includes('admin') ? undefined : tokenScope(principal.id));

@Controller('v1/memory')
export class MemoryController {
  constructor(
    private readonly memory: MemoryStore,
    private readonly memories: MemoryService,
    private readonly statuses: MemoryStatusService,
  ) {}

  @Post()
  @HttpCode(201)
  async store(@Body(new ZodPipe(storeMemorySchema)) dto: z.output<typeof storeMemorySchema>, @CurrentPrincipal() principal: Principal) {
    const scope = { person: personFor(principal, dto.scope), agentId: dto.agentId };
    const id = await this.memory.store(dto.content, { scope, source: 'api', metadata: dto.metadata, supersedes: dto.supersedes });
    return { id };
  }

  /** Browsing without a query: the person's memories for one agent, newest first, paged by `before`. */
  @Get()
  async list(@Query(new ZodPipe(listMemorySchema)) q: z.output<typeof listMemorySchema>, @CurrentPrincipal() principal: Principal) {
    const rows = await this.memories.recent(personFor(principal, q.scope), q.agentId, q.limit, q.before);
    return {
      memories: rows.map((m) => ({
        id: m.id,
        content: m.content,
        source: m.source,
        agentId: m.agentId,
        superseded: m.superseded,
        createdAt: new Date(m.createdAt).toISOString(),
      })),
      next: rows.length === q.limit ? rows[rows.length - 1].id : null,
    };
  }

  @Get('search')
  async search(@Query(new ZodPipe(searchMemorySchema)) q: z.output<typeof searchMemorySchema>, @CurrentPrincipal() principal: Principal) {
    const scope = { person: personFor(principal, q.scope), agentId: q.agentId };
    const r = await this.memory.recall(q.q, { scope, topK: q.k, mode: q.mode });
    return {
      mode: r.mode,
      ...(r.fallback ? { fallback: r.fallback } : {}),
      results: r.results.map((h) => ({ id: h.id, score: h.score, content: h.content, source: h.source, createdAt: h.createdAt })),
    };
  }

  /** Global counts, queue and index state for the owner and admin tokens; anyone else sees their own counts only. */
  @Get('status')
  status(@CurrentPrincipal() principal: Principal) {
    if (principal.scopes.includes('admin')) return this.statuses.status();
    return this.statuses.personStatus(tokenScope(principal.id));
  }

  @Get(':id')
  async get(@Param('id') id: string, @Query(new ZodPipe(scopeQuerySchema)) _query: unknown, @CurrentPrincipal() principal: Principal) {
    const m = await this.memories.get(id, byIdScope(principal));
    return {
      id: m.id,
      content: m.content,
      source: m.source,
      scope: m.scope,
      agentId: m.agentId,
      metadata: m.metadata,
      supersedes: m.supersedes,
      superseded: m.superseded,
      createdAt: new Date(m.createdAt).toISOString(),
      updatedAt: new Date(m.updatedAt).toISOString(),
    };
  }

  @Delete(':id')
  async forget(@Param('id') id: string, @CurrentPrincipal() principal: Principal) {
    await this.memories.forget(id, byIdScope(principal));
    return { id, forgotten: true };
  }
}
