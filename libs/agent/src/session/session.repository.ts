import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';
import type { ToolCall } from '@nestclaw/provider';
import type { SessionFilter, SessionSummary, StoredMessage } from './session.types';

/** Sessions as the API lists them: existence, the most recent ones, a transcript page (Prisma: ordinary reads). */
@Injectable()
export class SessionRepository {
  constructor(private readonly db: DatabaseService) {}

  async exists(sessionId: string): Promise<boolean> {
    const n = await this.db.prisma.session.count({ where: { id: sessionId } });
    return n > 0;
  }

  async listRecent(limit: number, before?: Date, filter: SessionFilter = {}): Promise<SessionSummary[]> {
    const { channel, agentId } = filter;
    // Prisma's contains/startsWith pass the text to LIKE as is: a `%` or `_` searched for is a character.
    const query = filter.query?.replace(/[\\%_]/g, '\\$&');
    const rows = await this.db.prisma.session.findMany({
      where: {
        ...(before ? { updatedAt: { lt: before } } : {}),
        ...(channel ? { channel } : {}),
        ...(agentId ? { agentId } : {}),
        ...(query
          ? {
              OR: [
                { id: { startsWith: query } },
                { title: { contains: query, mode: 'insensitive' as const } },
                // What people and the assistant said, not tool output (which can be large and is not the conversation).
                { messages: { some: { role: { in: ['user', 'assistant'] }, content: { contains: query, mode: 'insensitive' as const } } } },
              ],
            }
          : {}),
      },
      orderBy: { updatedAt: 'desc' },
      take: limit,
      include: { _count: { select: { messages: true } } },
    });
    return rows.map((r) => ({
      id: r.id,
      agentId: r.agentId,
      channel: r.channel,
      title: r.title,
      messageCount: r._count.messages,
      inputTokens: Number(r.inputTokens),
      outputTokens: Number(r.outputTokens),
      costUsd: Number(r.costUsd),
      running: r.turnReplica !== null,
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
    }));
  }

  async listMessages(sessionId: string, afterSeq: number, limit: number): Promise<StoredMessage[]> {
    const rows = await this.db.prisma.message.findMany({
      where: { sessionId, seq: { gt: afterSeq } },
      orderBy: { seq: 'asc' },
      take: limit,
    });
    return rows.map(toStoredMessage);
  }

  /** The `limit` messages just before `beforeSeq` (the newest ones when it is null), in order. */
  async listMessagesBefore(sessionId: string, beforeSeq: number | null, limit: number): Promise<StoredMessage[]> {
    const rows = await this.db.prisma.message.findMany({
      where: { sessionId, ...(beforeSeq === null ? {} : { seq: { lt: beforeSeq } }) },
      orderBy: { seq: 'desc' },
      take: limit,
    });
    return rows.reverse().map(toStoredMessage);
  }
}

type MessageRow = Awaited<ReturnType<DatabaseService['prisma']['message']['findMany']>>[number];

function toStoredMessage(r: MessageRow): StoredMessage {
  return {
    seq: r.seq,
    turnId: r.turnId,
    role: r.role as StoredMessage['role'],
    content: r.content,
    toolCalls: (r.toolCalls as ToolCall[] | null) ?? null,
    toolCallId: r.toolCallId,
    toolName: r.toolName,
    status: r.status,
    createdAt: r.createdAt.toISOString(),
  };
}
